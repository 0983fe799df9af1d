# Summarise a guest serial log: KTAP results of the test files, kernel
# problems outside expect-warn brackets, and whether the run completed.
# Variables: timed_out=1 when QEMU was killed by the timeout.
# Prints per-file results, offending kernel lines and, last, exactly one
# line "N passed, N failed[, N skipped]". Exit status 1 if anything failed.
# Usage: awk [-v VAR=VALUE...] -f kernel-problems.awk -f parse-log.awk LOG

BEGIN {
	problem = kernel_problem_re()
	passed = failed = skipped = 0
	case_fail = case_pass = case_skip = 0
	nfiles = 0; plan = -1; done = 0; expect = 0; incidents = 0; last_problem = -1000
	kernel_re = "\\[ *[0-9]+\\.[0-9]+\\] "
	# a KCSAN report is ours when a frame or the race's functions are of
	# our modules (the debug-kernel lane, tests/debug), unless its racing
	# functions are all in known_races (below)
	ours_re = "\\[(ext4x|mbcache2|percpu_stats)[a-z_]*\\]|(^| )(ext4x_|mbcache2_|mbc2_|percpu_stats_)"
	in_kcsan = 0; kcsan_ignored = 0; kcsan_known = 0
	# known_races (a file, tests/debug/kcsan-core-races): races in core
	# kernel code, one per line "FUNCTION  REASON", that a call from our
	# modules reaches but that are not ours (the racing accesses are both
	# in core code and race the same way under stock ext4)
	if (known_races != "") {
		while ((r = (getline line < known_races)) > 0) {
			if (line ~ /^[ \t]*(#|$)/)
				continue
			fn = line; sub(/[ \t].*/, "", fn)
			why = line; sub(/^[^ \t]+[ \t]+/, "", why)
			known[fn] = why
		}
		if (r < 0) {
			print "FAIL cannot read " known_races
			failed++
		}
		close(known_races)
	}
}

{ sub(/\r+$/, "") }

# The tests' output and the kernel's messages share the serial console, so a
# kernel message can land inside a line a test prints ("    ok 2 - fo[  9.1]
# sysrq: ...", then "o" on a line of its own). The text before the
# timestamp is held and put back in front of the next line without one, so
# a result split that way still counts. Diagnostics ("#") are not held: they
# may quote kernel lines on purpose.
{
	p = match($0, kernel_re)
	if (p > 1) {
		pre = substr($0, 1, p - 1)
		if (pre !~ /^ *#/)
			held = held pre
	} else if (p == 0 && held != "") {
		$0 = held $0
		held = ""
	}
}

index($0, "ktap: # expect-warn begin") { expect = 1; next }
index($0, "ktap: # expect-warn end") { expect = 0; next }

# KCSAN reports (a kernel built with KCSAN, tests/debug): one from the
# "BUG: KCSAN:" line to the closing "=====" line. One that names none of our
# modules is a race in code that is not ours: it stays in the log and is
# counted, not failed.
in_kcsan && match($0, kernel_re) {
	text = substr($0, RSTART + RLENGTH)
	kcsan_block = kcsan_block "\n" $0
	if (text ~ ours_re) kcsan_ours = 1
	if (text ~ /^=+$/) kcsan_end()
	next
}
match($0, kernel_re) && substr($0, RSTART + RLENGTH) ~ /^BUG: KCSAN: / {
	in_kcsan = 1; kcsan_block = $0
	text = substr($0, RSTART + RLENGTH)
	kcsan_ours = (text ~ ours_re)
	kcsan_racing(text)
	next
}

# Kernel console lines carry a printk timestamp; they are never KTAP.
match($0, kernel_re) || $0 ~ ("^" problem) {
	if ($0 ~ problem) {
		if (expect) {
			expected++
		} else {
			print "KERNEL: " $0
			# Lines of one splat (WARNING + Call Trace ...) are one failure.
			if (NR - last_problem > 60) incidents++
			last_problem = NR
		}
	}
	next
}

/^ext4x-guest: done/ { done = 1; next }
/^# [^ ]+: running/ { running = $2; sub(/:$/, "", running); next }
/^# pmem:/ { print; next }

/^1\.\.[0-9]+/ { if (plan < 0) plan = substr($0, 4) + 0; next }

# A result of a case inside a test file (depth 1).
/^    (not )?ok [0-9]+/ {
	if ($0 ~ /^    not ok/) {
		case_fail++
		fail_lines = fail_lines "    " substr($0, 5) "\n"
	} else if ($0 ~ /#[ \t]*[Ss][Kk][Ii][Pp]/) {
		case_skip++
	} else {
		case_pass++
	}
	next
}

# The result of a test file (depth 0).
/^(not )?ok [0-9]+/ {
	name = $0
	sub(/^(not )?ok [0-9]+ *(- *)?/, "", name)
	nfiles++
	extra = ""
	if ($0 ~ /^not ok/ && case_fail == 0) {
		# The file failed without a failing case: it crashed or timed out.
		case_fail = 1
		extra = " (the file itself failed)"
	}
	if ($0 ~ /^ok/ && $0 ~ /# SKIP/ && case_pass + case_skip == 0) {
		# the file skipped itself as a whole ("1..0 # SKIP REASON")
		why = name; sub(/.*# SKIP */, "", why)
		sub(/ *# SKIP.*/, "", name)
		printf "SKIP %s: %s\n", name, why
		skipped++
		running = ""
		next
	}
	status = ($0 ~ /^not ok/) ? "FAIL" : "PASS"
	printf "%s %s: %d passed, %d failed, %d skipped%s\n", status, name,
		case_pass, case_fail, case_skip, extra
	printf "%s", fail_lines
	passed += case_pass; failed += case_fail; skipped += case_skip
	case_pass = case_fail = case_skip = 0; fail_lines = ""; running = ""
	next
}

# kcsan_racing TITLE: the functions of the racing accesses, from the title
# ("BUG: KCSAN: data-race in F+0x1c/0x90 [mod] / G", one function when the
# other side is unknown); kcsan_known_fn is set to them when every one is
# in the known_races list, else to "".
function kcsan_racing(title,   n, i, f, fns) {
	sub(/^BUG: KCSAN: .* in /, "", title)
	n = split(title, f, / \/ /)
	kcsan_known_fn = ""
	for (i = 1; i <= n; i++) {
		sub(/[+ ].*/, "", f[i])
		if (!(f[i] in known))
			return
		fns = fns (i > 1 ? " / " : "") f[i]
	}
	kcsan_known_fn = fns
}

function kcsan_end(   n, i, l) {
	in_kcsan = 0
	if (!kcsan_ours) {
		kcsan_ignored++
		return
	}
	if (kcsan_known_fn != "") {
		kcsan_known++
		known_seen[kcsan_known_fn]++
		return
	}
	n = split(kcsan_block, l, "\n")
	for (i = 1; i <= n; i++)
		print "KERNEL: " l[i]
	incidents++
	last_problem = NR
}

END {
	if (in_kcsan)
		kcsan_end()
	if (kcsan_ignored)
		printf "%d KCSAN report(s) naming none of our modules (races in other kernel code: ignored, kept in the log)\n", kcsan_ignored
	if (kcsan_known) {
		printf "%d KCSAN report(s) of known core-kernel races reached from our modules (ignored, kept in the log):\n", kcsan_known
		for (fn in known_seen) {
			n = split(fn, f, / \/ /)
			printf "  %d x %s:", known_seen[fn], fn
			for (i = 1; i <= n; i++)
				if (i == 1 || f[i] != f[1])
					printf " %s", known[f[i]]
			printf "\n"
		}
	}
	if (running != "") {
		# The run ended inside a file: keep the cases it reported.
		printf "FAIL %s: %d passed, %d failed, %d skipped (did not finish)\n",
			running, case_pass, case_fail, case_skip
		printf "%s", fail_lines
		passed += case_pass; failed += case_fail; skipped += case_skip
	}
	if (expected)
		printf "%d kernel problem line(s) inside expect-warn brackets (ignored)\n", expected
	if (incidents) {
		printf "FAIL kernel: %d problem(s) logged\n", incidents
		failed += incidents
	}
	if (timed_out || !done || plan < 0 || nfiles != plan) {
		why = timed_out ? "QEMU was killed by the timeout" : \
			(!done ? "the guest did not reach 'ext4x-guest: done'" : \
			"test files reported " nfiles " of " (plan < 0 ? "?" : plan) " planned results")
		print "FAIL run incomplete: " why
		failed++
	}
	line = passed " passed, " failed " failed"
	if (skipped) line = line ", " skipped " skipped"
	print line
	exit failed ? 1 : 0
}
