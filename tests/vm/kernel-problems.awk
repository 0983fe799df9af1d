# kernel_problem_re(): the ERE of the kernel console lines that fail a guest
# run. parse-log.awk fails a run on them; emulator-int3.awk asks whether an
# int3 trap came before any of them. Load this file first:
#   awk -f kernel-problems.awk -f parse-log.awk LOG
function kernel_problem_re() {
	return "(Kernel panic|Oops:|BUG:|WARNING:|general protection fault|Call Trace:|UBSAN|kernel BUG)"
}
