/*
 * Included before every source file of the native addons (CFLAGS -include). glibc 2.29 gave
 * exp, log, log2 and pow new symbol versions (new implementations, without the old SVID error
 * handling); binding the versions every glibc has keeps the addons loadable on glibc 2.28, the
 * oldest Node 20 runs on (Debian 10, RHEL 8), although they are built on Debian 11 (2.31).
 */
#if defined(__x86_64__)
#define VIGIL_GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define VIGIL_GLIBC_BASE "GLIBC_2.17"
#endif
#ifdef VIGIL_GLIBC_BASE
__asm__(".symver exp,exp@" VIGIL_GLIBC_BASE);
__asm__(".symver log,log@" VIGIL_GLIBC_BASE);
__asm__(".symver log2,log2@" VIGIL_GLIBC_BASE);
__asm__(".symver pow,pow@" VIGIL_GLIBC_BASE);
#endif
