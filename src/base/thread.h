/*
 * thread.h - starting the library's threads.
 */
#ifndef OPMFU_THREAD_H
#define OPMFU_THREAD_H

#include <pthread.h>

/* pthread_create, with SIGINT, SIGTERM and SIGHUP blocked in the new thread:
 * they reach the thread that started the run, which is the only one that
 * stages output files, so a handler there removes every staged file and no
 * other thread makes a new one meanwhile (docs/cli.md, "Interruption"). */
int opmfu_thread_start(pthread_t *th, void *(*fn)(void *), void *arg);

#endif
