// SPDX-License-Identifier: GPL-2.0
/*
 * coherence-mark: open and close the coherence plugin's windows from the
 * guest, and its calibration workload.
 *
 *   coherence-mark start-kernel | start-all | stop
 *   coherence-mark calib shared|private N
 *
 * calib: two threads pinned to CPU 0 and CPU 1 each do N atomic increments,
 * of one counter (shared) or of one counter each, on lines of their own
 * (private), inside a window that counts every access. Prints
 * "calib MODE N" when done. Shared increments move the counter's line
 * between the CPUs whenever both really run at once; private ones never.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mark.h"

struct counter {
	alignas(64) unsigned long v;
};

static struct counter counters[2];
static struct counter ready;
static pthread_barrier_t start;
static unsigned long iterations;
static int shared;

static void *incrementer(void *arg)
{
	long cpu = (long)arg;
	struct counter *c = &counters[shared ? 0 : cpu];
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("coherence-mark: sched_setaffinity");
		exit(1);
	}
	pthread_barrier_wait(&start);
	/*
	 * Both spin until both run: a vCPU woken from idle can take longer
	 * to start than the other takes for all its increments.
	 */
	__atomic_fetch_add(&ready.v, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&ready.v, __ATOMIC_ACQUIRE) < 2)
		;
	for (unsigned long i = 0; i < iterations; i++)
		__atomic_fetch_add(&c->v, 1, __ATOMIC_RELAXED);
	return NULL;
}

static int calibrate(const char *mode, const char *n)
{
	pthread_t t[2];
	long i;

	shared = !strcmp(mode, "shared");
	ready.v = 0;
	iterations = strtoul(n, NULL, 0);
	if ((!shared && strcmp(mode, "private")) || !iterations) {
		fprintf(stderr, "coherence-mark: calib shared|private N\n");
		return 2;
	}
	pthread_barrier_init(&start, NULL, 3);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, incrementer, (void *)i);
	COH_MARK(COH_MARK_START_ALL);
	pthread_barrier_wait(&start);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	COH_MARK(COH_MARK_STOP);
	if (counters[0].v + (shared ? 0 : counters[1].v) != 2 * iterations) {
		fprintf(stderr, "coherence-mark: lost increments\n");
		return 1;
	}
	printf("calib %s %lu\n", mode, iterations);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "calib"))
		return calibrate(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "start-kernel")) {
		COH_MARK(COH_MARK_START_KERNEL);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "start-all")) {
		COH_MARK(COH_MARK_START_ALL);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "stop")) {
		COH_MARK(COH_MARK_STOP);
		return 0;
	}
	fprintf(stderr, "usage: coherence-mark start-kernel|start-all|stop\n"
		"       coherence-mark calib shared|private N\n");
	return 2;
}
