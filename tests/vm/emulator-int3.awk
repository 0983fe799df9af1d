# One boot's serial log in; exit 0 when the boot died of the emulator fault
# of docs/NOTES.md and of nothing else, 1 otherwise. QEMU 7.2's
# multi-threaded TCG can run the temporary int3 of a kernel text patch from
# a stale translation; the kernel then dies of a breakpoint no code of its
# own placed. Such a boot shows:
#  - as its first kernel problem, an int3 trap ("Oops: int3: 0000 [#1]" on
#    6.12, "int3: 0000 [#1]" on 6.1), not any other line of
#    kernel-problems.awk's, which parse-log.awk fails a run on;
#  - "Not tainted" on the CPU line of that oops. Our modules are out of
#    tree and taint the kernel as they load, and a warning taints it too,
#    so an untainted kernel had run no code of ours and reported nothing.
# Usage: tail -c +OFFSET serial.log |
#        awk -f kernel-problems.awk -f emulator-int3.awk
BEGIN { problem = kernel_problem_re() }
{ sub(/\r+$/, "") }
state == 0 && /(Oops: )?int3: [0-9a-f]+ \[#1\]/ { state = 1; next }
# another report first: END sees state 0
state == 0 && $0 ~ problem { exit }
state == 1 && / Comm: / { state = / Not tainted / ? 2 : 3 }
END { exit state != 2 }
