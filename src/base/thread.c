/*
 * thread.c - starting the library's threads (thread.h).
 */
#include "base/thread.h"

#include <signal.h>

int opmfu_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	sigset_t block, old;
	int rc;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	/* the new thread inherits the mask; this one gets its own back */
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rc = pthread_create(th, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}
