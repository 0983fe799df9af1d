// SPDX-License-Identifier: GPL-2.0
/*
 * coherence.so: a QEMU TCG plugin that counts cache-line transfers between
 * vCPUs (model.h) inside windows the guest marks (mark.c).
 *
 *   qemu-system-x86_64 -accel tcg,thread=multi -smp 2 \
 *	-plugin coherence.so,out=FILE,pmem=ADDR[,lines=BITS]
 *
 * out:   where each window's record goes (model.c, coh_close())
 * pmem:  the guest-physical address where the emulated NVDIMM starts; lines
 *        from there on are counted apart (file data under DAX)
 * lines: log2 of the line table's slots (default 23: 8M lines, 256 MiB)
 *
 * The window markers are 7-byte nops, "nopl disp32(%rax)", whose
 * displacement is COH_MARK_MAGIC plus an operation (mark.h): the plugin
 * recognises them from their bytes when it translates them.
 */
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

#include "mark.h"
#include "model.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static struct coh coh;
static FILE *out;
static unsigned int windows;

/* vaddr: the API's uint64_t, unsigned long on the x86-64 hosts QEMU runs on */
static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info,
		   unsigned long vaddr, void *site)
{
	struct qemu_plugin_hwaddr *hw;

	if (!__atomic_load_n(&coh.open, __ATOMIC_RELAXED))
		return;
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return;
	coh_access(&coh, vcpu, qemu_plugin_hwaddr_phys_addr(hw),
		   (u64)(uintptr_t)site, qemu_plugin_mem_is_store(info));
}

static void on_mark(unsigned int vcpu, void *op)
{
	switch ((uintptr_t)op) {
	case COH_MARK_START_ALL:
	case COH_MARK_START_KERNEL:
		if (!__atomic_load_n(&coh.open, __ATOMIC_RELAXED))
			coh_open(&coh, (uintptr_t)op == COH_MARK_START_KERNEL);
		break;
	case COH_MARK_STOP:
		if (__atomic_load_n(&coh.open, __ATOMIC_RELAXED))
			coh_close(&coh, out, __atomic_fetch_add(&windows, 1, __ATOMIC_RELAXED));
		break;
	}
}

/* the operation of a marker instruction, or -1 */
static int mark_op(struct qemu_plugin_insn *insn)
{
	const unsigned char *b = qemu_plugin_insn_data(insn);
	u32 disp;

	if (qemu_plugin_insn_size(insn) != 7 || b[0] != 0x0f || b[1] != 0x1f ||
	    b[2] != 0x80)
		return -1;
	memcpy(&disp, b + 3, sizeof(disp));
	if ((disp & ~COH_MARK_OP_MASK) != COH_MARK_MAGIC)
		return -1;
	return disp & COH_MARK_OP_MASK;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		u64 va = qemu_plugin_insn_vaddr(insn);
		int op = mark_op(insn);

		if (op >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)op);
		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW,
						 (void *)(uintptr_t)va);
	}
}

static void on_qemu_exit(qemu_plugin_id_t id, void *p)
{
	fprintf(out, "exit windows %u\n", __atomic_load_n(&windows, __ATOMIC_RELAXED));
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;
	u64 pmem = UINT64_MAX;
	unsigned int bits = 23;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else if (!strncmp(argv[i], "pmem=", 5)) {
			pmem = strtoull(argv[i] + 5, NULL, 0);
		} else if (!strncmp(argv[i], "lines=", 6)) {
			bits = strtoul(argv[i] + 6, NULL, 0);
		} else {
			fprintf(stderr, "coherence: unknown argument '%s'\n", argv[i]);
			return -1;
		}
	}
	if (!path || bits < 10 || bits > 30 || !info->system_emulation ||
	    info->system.max_vcpus > COH_MAX_CPUS) {
		fprintf(stderr, "coherence: needs out=FILE, lines=10..30, %s\n",
			"system emulation and at most 8 vCPUs");
		return -1;
	}
	out = fopen(path, "w");
	if (!out || coh_init(&coh, bits, 16, pmem)) {
		fprintf(stderr, "coherence: cannot open %s or allocate the tables\n", path);
		return -1;
	}
	fprintf(out, "coherence 1 vcpus %d pmem 0x%llx lines %u\n",
		info->system.smp_vcpus, (unsigned long long)pmem, bits);
	fflush(out);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
