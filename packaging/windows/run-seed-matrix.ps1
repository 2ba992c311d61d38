<#
.SYNOPSIS
Runs nvbench's seed matrix (the published comparison's 8 cells) on a disk,
volume or directory, writes the results JSON and prints the seed table.

.DESCRIPTION
Targets:
  D:\bench          a directory: a scratch file of -Size is laid out there
  D:                a volume: the scratch file goes into D:\nvbench-seed
  PhysicalDrive3    a whole disk (also 3 or \\.\PhysicalDrive3): written
                    raw, destroying what it holds; asked before, and refused
                    while it has partitions (the library refuses them too)
  A,B,C             several (a JBOD, one per drive): every run spreads its
                    I/O over them all; disks or directories, not both
A target on the system or boot disk is refused.

The storage stack (native: nvmedisk; non-native: disk over stornvme) is
detected from the disk's driver where Windows lets a program read it; where
it cannot be, state it with -Stack, and the results record it as stated.
Every engine that works on this Windows (wsync, iocp, ioring) runs unless
-Engines names some.

Unverified until run on Windows: written and checked for structure on Linux
only (docs/windows.md).

.EXAMPLE
.\run-seed-matrix.ps1 E:\bench -Stack windows_native -Repeat 3
#>
[CmdletBinding()]
param(
    [Parameter(Mandatory = $true, Position = 0)]
    [string[]]$Target,
    [string]$Json = "",
    [string]$Runtime = "30s",
    [string]$Engines = "",
    [ValidateRange(1, 100)]
    [int]$Repeat = 3,
    [ValidateSet("", "windows_native", "windows_non_native")]
    [string]$Stack = "",
    [string]$Size = "16G",
    [ValidateRange(1, 4096)]
    [int]$Qd = 32,
    [ValidateRange(1, 1024)]
    [int]$Jobs = 1,
    [ValidateRange(0, 100)]
    [int]$Precondition = 0,
    [switch]$Force
)

Set-StrictMode -Version Latest
$ErrorActionPreference = "Stop"

$here = Split-Path -Parent $MyInvocation.MyCommand.Path
$exe = Join-Path $here "seed_matrix.exe"
if (-not (Test-Path -LiteralPath $exe)) {
    throw "seed_matrix.exe is not beside this script ($here): unpack the whole zip"
}

function Get-TargetDisk {
    # The disk under a drive letter, or $null when none is found.
    param([string]$Letter)
    $part = Get-Partition -DriveLetter $Letter -ErrorAction SilentlyContinue
    if ($null -eq $part) { return $null }
    return Get-Disk -Number @($part)[0].DiskNumber
}

function Assert-NotSystem {
    param($Disk, [string]$What)
    if ($null -eq $Disk) { return }
    if ($Disk.IsSystem -or $Disk.IsBoot) {
        throw "refusing ${What}: it is on disk $($Disk.Number) ($($Disk.FriendlyName)), the system or boot disk"
    }
}

function Resolve-SeedTarget {
    # One named target: Path, what seed_matrix.exe gets; Disk, the disk
    # its write cells overwrite, or $null.
    param([string]$Name)
    if ($Name -match '^(\\\\\.\\)?(PhysicalDrive)?(\d+)$') {
        $number = [int]$Matches[3]
        $disk = Get-Disk -Number $number
        Assert-NotSystem $disk "PhysicalDrive$number"
        $parts = @(Get-Partition -DiskNumber $number -ErrorAction SilentlyContinue)
        if ($parts.Count -gt 0) {
            throw "refusing PhysicalDrive${number}: it has $($parts.Count) partition(s); the write cells would destroy them (name a directory or volume on it instead, or clear the disk first)"
        }
        return @{ Path = "\\.\PhysicalDrive$number"; Disk = $disk }
    }
    if ($Name -match '^([A-Za-z]):\\?$') {
        $letter = $Matches[1].ToUpper()
        Assert-NotSystem (Get-TargetDisk $letter) "volume ${letter}:"
        $dir = Join-Path "${letter}:\" "nvbench-seed"
        New-Item -ItemType Directory -Force -Path $dir | Out-Null
        return @{ Path = $dir; Disk = $null }
    }
    if (-not (Test-Path -LiteralPath $Name -PathType Container)) {
        throw "$Name is not a directory, a volume (D:) or a disk (PhysicalDrive3)"
    }
    $path = (Resolve-Path -LiteralPath $Name).Path
    $qualifier = Split-Path -Qualifier $path -ErrorAction SilentlyContinue
    if ($qualifier -match '^([A-Za-z]):$') {
        Assert-NotSystem (Get-TargetDisk $Matches[1]) $path
    } else {
        Write-Warning "cannot tell which disk holds $path; make sure it is not the system disk"
    }
    return @{ Path = $path; Disk = $null }
}

# Several targets (a JBOD: one per drive) make every run spread over them all.
$runTargets = @()
$disks = @()
foreach ($name in $Target) {
    $resolved = Resolve-SeedTarget $name
    $runTargets += $resolved.Path
    if ($null -ne $resolved.Disk) { $disks += $resolved.Disk }
}
$destructive = $disks.Count -gt 0
if ($destructive -and $disks.Count -ne $runTargets.Count) {
    throw "name whole disks or directories and volumes, not both: the scratch file size (-Size) would cap the disks too"
}

if ($destructive) {
    foreach ($d in $disks) {
        $gib = [math]::Round($d.Size / 1GB, 1)
        Write-Host "The write cells will overwrite PhysicalDrive$($d.Number) ($($d.FriendlyName), $gib GiB) from its first byte."
    }
    if (-not $Force) {
        $answer = Read-Host "Type YES to destroy what these $($disks.Count) disk(s) hold"
        if ($answer -cne "YES") {
            Write-Host "nothing was run"
            exit 1
        }
    }
}

if ($Json -eq "") {
    $label = if ($Stack -ne "") { $Stack } else { "windows" }
    $Json = "seed-$label-$env:COMPUTERNAME-$(Get-Date -Format yyyyMMdd-HHmmss).json"
}

$argv = @("--json", $Json, "--runtime", $Runtime, "--repeat", "$Repeat", "--qd", "$Qd", "--jobs", "$Jobs")
if ($Engines -ne "") { $argv += @("--engines", $Engines) }
if ($Stack -ne "") { $argv += @("--stack", $Stack) }
if ($Precondition -gt 0) { $argv += @("--precondition", "$Precondition") }
if ($destructive) {
    $argv += "--allow-destructive"
} else {
    $argv += @("--size", $Size)
}
$argv += $runTargets

Write-Host "seed_matrix.exe $($argv -join ' ')"
& $exe @argv
$status = $LASTEXITCODE

if (Test-Path -LiteralPath $Json) {
    $results = @((Get-Content -Raw -LiteralPath $Json | ConvertFrom-Json).results)
    # a run that failed before its engine started records no stack (StrictMode: ask first)
    $stacks = @($results | ForEach-Object {
            if ($_.engine_used.PSObject.Properties["stack"]) { $_.engine_used.stack } else { "unknown" }
        } | Sort-Object -Unique)
    Write-Host "results: $Json ($($results.Count) runs; stack: $($stacks -join ', '))"
    if ($Stack -eq "" -and $stacks -contains "unknown") {
        Write-Warning "the stack could not be detected here: run again with -Stack windows_native or -Stack windows_non_native (docs/reproduce.md says how to tell)"
    }
}
exit $status
