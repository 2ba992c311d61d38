/* Small Windows helpers: error mapping, UTF-8 <-> UTF-16, wine detection. */
#include "platform/win/win.h"
#include "platform/winfmt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef ERROR_OFFSET_ALIGNMENT_VIOLATION
#define ERROR_OFFSET_ALIGNMENT_VIOLATION 327L
#endif

int nvb__win_errno(DWORD err)
{
    switch (err) {
    case ERROR_SUCCESS: return 0;
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME: return -ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_PRIVILEGE_NOT_HELD: return -EACCES;
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_BUSY: return -EBUSY;
    case ERROR_INVALID_HANDLE: return -EBADF;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
    case ERROR_NO_SYSTEM_RESOURCES:
    case ERROR_WORKING_SET_QUOTA: return -ENOMEM;
    case ERROR_INVALID_PARAMETER:
    case ERROR_INVALID_NAME:
    case ERROR_NEGATIVE_SEEK:
    case ERROR_OFFSET_ALIGNMENT_VIOLATION: return -EINVAL;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS: return -EEXIST;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL: return -ENOSPC;
    case ERROR_WRITE_PROTECT: return -EROFS;
    case ERROR_FILENAME_EXCED_RANGE:
    case ERROR_BUFFER_OVERFLOW: return -ENAMETOOLONG;
    case ERROR_DIRECTORY: return -ENOTDIR;
    case ERROR_NOT_SUPPORTED:
    case ERROR_INVALID_FUNCTION:
    case ERROR_CALL_NOT_IMPLEMENTED: return -ENOTSUP;
    case ERROR_OPERATION_ABORTED: return -ECANCELED;
    case ERROR_NOT_READY:
    case ERROR_DEV_NOT_EXIST: return -ENODEV;
    case ERROR_TIMEOUT:
    case WAIT_TIMEOUT: return -ETIMEDOUT;
    case ERROR_INSUFFICIENT_BUFFER:
    case ERROR_MORE_DATA: return -ENOSPC;
    default: return -EIO;
    }
}

wchar_t *nvb__win_wide(const char *utf8)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
    if (n <= 0)
        return NULL;
    wchar_t *w = malloc((size_t)n * sizeof *w);
    if (!w)
        return NULL;
    if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, w, n) != n) {
        free(w);
        return NULL;
    }
    return w;
}

void nvb__win_narrow(const wchar_t *w, char *out, size_t len)
{
    if (!len)
        return;
    out[0] = '\0';
    if (!w)
        return;
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, out, (int)(len > 0x7fffffff ? 0x7fffffff : len), NULL, NULL);
    if (n <= 0) {
        /* too long: convert into a temporary and cut at a character boundary */
        int need = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
        char *tmp = need > 0 ? malloc((size_t)need) : NULL;
        if (tmp && WideCharToMultiByte(CP_UTF8, 0, w, -1, tmp, need, NULL, NULL) > 0) {
            size_t k = len - 1;
            while (k > 0 && ((unsigned char)tmp[k] & 0xc0) == 0x80)
                k--;
            memcpy(out, tmp, k);
            out[k] = '\0';
        }
        free(tmp);
    }
}

int nvb__win_is_device_path(const char *path)
{
    if (!path)
        return 0;
    /* \\.\X: and \\.\PhysicalDriveN, \\?\Volume{...} without a trailing
     * component (with one it names a file on that volume) */
    if (nvb__win_prefix_ci(path, "\\\\.\\") || nvb__win_prefix_ci(path, "//./")) {
        const char *rest = path + 4;
        return strchr(rest, '\\') == NULL && strchr(rest, '/') == NULL;
    }
    if (nvb__win_prefix_ci(path, "\\\\?\\Volume{")) {
        const char *end = strchr(path, '}');
        return end && (end[1] == '\0');
    }
    return 0;
}

int nvb__win_is_wine(void)
{
    HMODULE nt = GetModuleHandleW(L"ntdll.dll");
    return nt && GetProcAddress(nt, "wine_get_version") != NULL;
}
