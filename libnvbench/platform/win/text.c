/* procfs and sysfs have no Windows counterpart: the environment's Linux
 * facts are null there, with this reason (core/explain_env.c). */
#include "platform/platform.h"

#include <errno.h>

int nvb__text_read(const char *root, const char *rel, char *buf, size_t len)
{
    (void)root;
    (void)rel;
    if (len)
        buf[0] = 0;
    return -ENOTSUP;
}

int nvb__link_base(const char *root, const char *rel, char *out, size_t len)
{
    return nvb__text_read(root, rel, out, len); /* the same refusal */
}
