/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The window markers of the coherence plugin: "nopl disp32(%rax)", 0f 1f 80
 * and a 32-bit displacement, COH_MARK_MAGIC plus the operation.  A nop on
 * any x86-64; only the plugin gives it a meaning.
 */
#ifndef COHERENCE_MARK_H
#define COHERENCE_MARK_H

#define COH_MARK_MAGIC		0x43480000u	/* "HC" */
#define COH_MARK_OP_MASK	0xffu
#define COH_MARK_START_ALL	1	/* count every access */
#define COH_MARK_START_KERNEL	2	/* count kernel-mode instructions only */
#define COH_MARK_STOP		3	/* close the window, write its record */

#define COH_MARK(op)							\
	({								\
		__asm__ __volatile__(".byte 0x0f, 0x1f, 0x80; .long %c0" \
				     : : "i" (COH_MARK_MAGIC | (op)) : "memory"); \
	})

#endif
