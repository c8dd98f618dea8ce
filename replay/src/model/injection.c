/* SPDX-License-Identifier: MIT */
/* The injection discipline's names (retime/replay.h, enum rt_injection): how a rank's outstanding
 * sends share its injection, one rule for the crossbar, the collectives and the network
 * (docs/network.md, "One discipline"). */
#include "retime/replay.h"

#include <string.h>

static const char *const injection_names[] = {"in-order", "shared"};

int rt_injection_parse(const char *s, int *out, rt_error *err)
{
    for (int i = 0; i < 2; i++)
        if (s && !strcmp(s, injection_names[i])) {
            *out = i;
            return RT_OK;
        }
    return rt_error_set(err, RT_EINVAL, "injection '%.40s': must be in-order or shared", s ? s : "");
}

const char *rt_injection_name(int injection)
{
    return injection == RT_INJECT_IN_ORDER || injection == RT_INJECT_SHARED ? injection_names[injection] : "?";
}
