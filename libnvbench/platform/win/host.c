/* The machine's name, for results merged across hosts (Windows). */
#include "platform/platform.h"
#include "platform/win/win.h"

#include <errno.h>

/* The DNS host name, as gethostname() gives it on Linux (not the NetBIOS
 * name, which is upper-cased and cut to 15 characters). */
int nvb__hostname(char *buf, size_t len)
{
    if (!buf || !len)
        return -EINVAL;
    buf[0] = 0;
    wchar_t name[256];
    DWORD n = 256;
    if (!GetComputerNameExW(ComputerNameDnsHostname, name, &n))
        return nvb__win_errno(GetLastError());
    nvb__win_narrow(name, buf, len);
    return 0;
}
