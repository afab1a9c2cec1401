/*
 * The pause of a spin loop, for every spinning reader and writer (the
 * compositor's ring loop, libsmt's wait for the tail, the X server half's
 * wait for ring input): it tells the CPU the loop waits on memory another
 * core writes, and costs nothing where there is no such instruction.
 */
#ifndef SMT_CPU_RELAX_H
#define SMT_CPU_RELAX_H

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

#endif
