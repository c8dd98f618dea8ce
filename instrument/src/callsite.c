/* SPDX-License-Identifier: MIT */
/* Call sites of MPI calls: a cheap per-return-address cache at run time, resolved to function,
 * file and line with elfutils libdw once, at finalize. */
#include "trace.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef RT_LIBUNWIND_SONAME
#define RT_LIBUNWIND_SONAME "libunwind.so.8"
#endif

/* Open addressing keyed by return address; 2 * RT_MAX_CALLSITES slots keep probes short. When
 * RT_MAX_CALLSITES distinct sites have been seen, later new sites get no call-site attribute:
 * memory stays bounded for programs with generated code. */
#define RT_CS_SLOTS (2u * RT_MAX_CALLSITES)
static struct {
    uintptr_t addr;
    uint32_t id;
} rt__cs_table[RT_CS_SLOTS];
static uintptr_t rt__cs_addrs[RT_MAX_CALLSITES];
static uint32_t rt__cs_n;

/* libunwind is loaded only when it is asked for, and privately (RTLD_LOCAL). Linked to the
 * tracer, libunwind.so.8 would enter the program's global scope ahead of libgcc_s and glibc
 * whenever the tracer is preloaded, and its exported _Unwind_* (C++ exception unwinding) and
 * weak backtrace() would replace theirs for the whole program. */
static int (*rt__unw_backtrace)(void **, int);

void rt__callsite_init(void)
{
    if (rt__g.callsite_mode != 2)
        return;
    void *h = dlopen(RT_LIBUNWIND_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (h)
        *(void **)&rt__unw_backtrace = dlsym(h, "unw_backtrace");
    if (!rt__unw_backtrace) {
        rt__g.callsite_mode = 1;
        if (rt__g.rank == 0)
            rt__warn("cannot load %s (%s); call sites are the direct callers", RT_LIBUNWIND_SONAME,
                     h ? "no unw_backtrace" : dlerror());
    }
}

/* The libunwind path serves RETIME_TRACE_CALLSITE_SKIP=N: programs that call MPI through their
 * own helpers want the helper's caller. Frames: [0] here, [1] rt__callsite_id, [2] rt__enter,
 * [3] the wrapper, [4] its caller, [4 + skip] the frame wanted. The default path is
 * __builtin_return_address(0) in the wrapper, which costs nothing and is exact for the direct
 * caller. */
__attribute__((noinline)) static uintptr_t rt__unwind_caller(int skip)
{
    void *frames[24];
    int want = 5 + skip, n = rt__unw_backtrace(frames, want);
    return n >= want ? (uintptr_t)frames[want - 1] : 0;
}

uint32_t rt__callsite_id(void *ret)
{
    uintptr_t a = (uintptr_t)ret;
    if (rt__g.callsite_mode == 2)
        a = rt__unwind_caller(rt__g.callsite_skip);
    if (!a)
        return OTF2_UNDEFINED_CALLING_CONTEXT;
    uint32_t i = (uint32_t)((a >> 2) * 0x9E3779B97F4A7C15ull >> 40) & (RT_CS_SLOTS - 1);
    while (rt__cs_table[i].addr) {
        if (rt__cs_table[i].addr == a)
            return rt__cs_table[i].id;
        i = (i + 1) & (RT_CS_SLOTS - 1);
    }
    if (rt__cs_n >= RT_MAX_CALLSITES)
        return OTF2_UNDEFINED_CALLING_CONTEXT;
    rt__cs_addrs[rt__cs_n] = a;
    rt__cs_table[i].addr = a;
    rt__cs_table[i].id = rt__cs_n++;
    return rt__cs_table[i].id;
}

/* A function the compiler cloned or split keeps the source's name with a suffix in its ELF symbol
 * ("hop_ssend.constprop.0", "f.isra.0", "f.part.1", "f.cold", "f.lto_priv.0"): without DWARF (a
 * Release build) the symbol is all there is, and a clone is the same function to the user. C
 * identifiers have no '.', so each such suffix is cut, however many are stacked. */
static void rt__strip_clone_suffix(char *name)
{
    static const char *const kinds[] = {"constprop", "isra", "part", "cold", "lto_priv",
                                        "localalias", "clone"};
    char *dot;
    while ((dot = strrchr(name, '.')) != NULL && dot != name) {
        char *tail = dot + 1;
        if (*tail >= '0' && *tail <= '9') { /* ".0" of ".constprop.0": cut it with its kind */
            tail += strspn(tail, "0123456789");
            if (*tail)
                return;
            char *prev = dot;
            while (prev > name && prev[-1] != '.')
                prev--;
            if (prev == name)
                return;
            tail = prev;
            dot = prev - 1;
        }
        size_t k = 0, nk = sizeof kinds / sizeof kinds[0];
        while (k < nk && strncmp(tail, kinds[k], strlen(kinds[k])) != 0)
            k++;
        if (k == nk || (tail[strlen(kinds[k])] && tail[strlen(kinds[k])] != '.'))
            return;
        *dot = '\0';
    }
}

/* Name, file, line of the call at return address @p ret: the call instruction ends at ret, so
 * ret - 1 lies inside it and maps to the call's line, not the next statement's. */
static void rt__resolve_one(Dwfl *dwfl, uintptr_t ret, struct rt__callsite_info *ci)
{
    Dwarf_Addr pc = (Dwarf_Addr)(ret - 1);
    Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, pc) : NULL;
    if (mod) {
        const char *name = dwfl_module_addrname(mod, pc);
        if (name)
            snprintf(ci->func, sizeof ci->func, "%s", name);
        Dwfl_Line *line = dwfl_module_getsrc(mod, pc);
        int lineno = 0;
        const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
        if (file) {
            snprintf(ci->file, sizeof ci->file, "%s", file);
            ci->line = lineno > 0 ? (uint32_t)lineno : 0;
        }
        /* The source-level function (the innermost subprogram or inlined subroutine holding
         * pc) names the call site: its DWARF name has no ".constprop"/".isra" suffix, and a call
         * inlined into another function is attributed to the function written around it. */
        Dwarf_Addr bias = 0;
        Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias);
        Dwarf_Die *scopes = NULL;
        int ns = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
        for (int i = 0; i < ns; i++) {
            int tag = dwarf_tag(&scopes[i]);
            if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
                int fl = 0;
                if (dwarf_decl_line(&scopes[i], &fl) == 0 && fl > 0)
                    ci->func_line = (uint32_t)fl;
                const char *dn = dwarf_diename(&scopes[i]);
                if (dn)
                    snprintf(ci->func, sizeof ci->func, "%s", dn);
                break;
            }
        }
        free(scopes);
    }
    if (!ci->func[0]) {
        Dl_info info;
        if (dladdr((void *)pc, &info) && info.dli_sname)
            snprintf(ci->func, sizeof ci->func, "%s", info.dli_sname);
        else if (dladdr((void *)pc, &info) && info.dli_fname)
            snprintf(ci->func, sizeof ci->func, "??@%s+0x%lx", info.dli_fname,
                     (unsigned long)(pc - (uintptr_t)info.dli_fbase));
        else
            snprintf(ci->func, sizeof ci->func, "??@0x%lx", (unsigned long)pc);
    }
    rt__strip_clone_suffix(ci->func);
}

int rt__callsite_resolve(struct rt__callsite_info **out, uint32_t *n)
{
    *out = NULL;
    *n = 0;
    if (!rt__cs_n)
        return 0;
    struct rt__callsite_info *cs = calloc(rt__cs_n, sizeof *cs);
    if (!cs)
        return -1;
    static char *debuginfo_path = NULL;
    static const Dwfl_Callbacks cb = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .debuginfo_path = &debuginfo_path,
    };
    Dwfl *dwfl = dwfl_begin(&cb);
    if (dwfl) {
        dwfl_report_begin(dwfl);
        if (dwfl_linux_proc_report(dwfl, getpid()) != 0 || dwfl_report_end(dwfl, NULL, NULL) != 0) {
            dwfl_end(dwfl);
            dwfl = NULL;
        }
    }
    for (uint32_t i = 0; i < rt__cs_n; i++) {
        cs[i].index = i;
        rt__resolve_one(dwfl, rt__cs_addrs[i], &cs[i]);
    }
    if (dwfl)
        dwfl_end(dwfl);
    *out = cs;
    *n = rt__cs_n;
    return 0;
}
