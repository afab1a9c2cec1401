# The 32-bit x86 twin of libsmt-x11shim.so: an ELF32 shared object with
# nothing in it (xwayland-glue/elf32/meson.build says why).
	.section .note.GNU-stack,"",@progbits
