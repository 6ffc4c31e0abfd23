/* unit.c: one unit: spawn, watch, kill at the deadline, decide the status (see unit.h) */
#include "config.h"
#include "harness/run/unit.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "harness/record/proto.h"

/* Seconds between SIGTERM and SIGKILL when a unit times out or the run is stopped. */
#define KILL_GRACE_S 2.0

const char *unit_status(const struct unit_exit *x, char **message)
{
	static const char *const known[] = { REC_STATUS_OK, REC_STATUS_COMPILE_ERROR,
					     REC_STATUS_INCORRECT, REC_STATUS_FAILED };
	if (x->timed_out) {
		*message = xasprintf("no result within %.0f s; killed", x->timeout_s);
		return REC_STATUS_TIMEOUT;
	}
	if (x->signaled) {
		*message = xasprintf("killed by signal %d (%s)", x->sig, strsignal(x->sig));
		return REC_STATUS_CRASHED;
	}
	if (x->code != 0) {
		*message = xasprintf("exited with status %d%s%s", x->code,
				     x->done_message ? ": " : "",
				     x->done_message ? x->done_message : "");
		return REC_STATUS_FAILED;
	}
	if (x->stream_error) {
		*message = xstrdup(x->stream_error);
		return REC_STATUS_BAD_OUTPUT;
	}
	if (!x->saw_done || !x->done_status) {
		*message = xstrdup("the unit exited without a 'done' record");
		return REC_STATUS_BAD_OUTPUT;
	}
	for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
		if (!strcmp(x->done_status, known[i])) {
			*message = xstrdup(x->done_message ? x->done_message : "");
			return x->done_status;
		}
	}
	*message = xasprintf("unknown unit status '%s'", x->done_status);
	return REC_STATUS_BAD_OUTPUT;
}

int unit_is_cache_leak(const struct rec_unit *u)
{
	return !u->warm && u->expects_work && u->status && !strcmp(u->status, REC_STATUS_OK) &&
	       u->compiles == 0 && u->benchmarks == 0;
}

static const char *last_cell(const struct rec_unit_data *u)
{
	if (u->nmeasures)
		return u->cells[u->measures[u->nmeasures - 1].cell].name;
	if (u->ntrials)
		return u->cells[u->trials[u->ntrials - 1].cell].name;
	return "(setting up)";
}

/* Read the unit's records until its pipe closes and it exits, or the deadline passes, or
 * *stop is set.  Fills *st; *timed_out / *stopped say why it was killed. */
static int watch(const struct unit_spec *s, struct spawn *sp, struct proto_in *in,
		 struct progress *prog, volatile sig_atomic_t *stop, struct spawn_status *st,
		 int *timed_out, int *stopped)
{
	int64_t now0 = util_now_ns(), budget = util_s_to_ns(s->timeout_s);
	int64_t deadline = budget > INT64_MAX - now0 ? INT64_MAX : now0 + budget;
	int64_t kill_at = 0; /* when SIGKILL follows the SIGTERM already sent */
	int open = 1;
	char buf[65536];
	for (;;) {
		int64_t now = util_now_ns();
		if (!kill_at && (now >= deadline || *stop)) {
			if (now >= deadline)
				*timed_out = 1;
			else
				*stopped = 1;
			spawn_kill_group(sp, SIGTERM);
			kill_at = now + (int64_t)(KILL_GRACE_S * 1e9);
		} else if (kill_at && now >= kill_at) {
			spawn_kill_group(sp, SIGKILL);
			kill_at = INT64_MAX;
		}
		if (open) {
			struct pollfd pfd = { .fd = sp->rec_fd, .events = POLLIN };
			int pr = poll(&pfd, 1, 100);
			if (pr < 0 && errno != EINTR)
				return error_errno("cannot poll the unit's record pipe");
			if (pr > 0) {
				ssize_t n = read(sp->rec_fd, buf, sizeof(buf));
				if (n < 0 && errno != EINTR && errno != EAGAIN)
					return error_errno("cannot read the unit's record pipe");
				if (n == 0) {
					open = 0;
				} else if (n > 0) {
					proto_in_feed(in, buf, (size_t)n);
					progress_tick(prog, s->mode, last_cell(in->u));
				}
			}
		}
		int done = spawn_poll(sp, st);
		if (done < 0)
			return -1;
		if (done == 1) {
			/* Drain what the unit wrote before it exited (the pipe may be held open
			 * by a grandchild: read only what is there now). */
			if (open) {
				int fl = fcntl(sp->rec_fd, F_GETFL);
				fcntl(sp->rec_fd, F_SETFL, fl | O_NONBLOCK);
				ssize_t n;
				while ((n = read(sp->rec_fd, buf, sizeof(buf))) > 0)
					proto_in_feed(in, buf, (size_t)n);
			}
			return 0;
		}
		if (!open)
			usleep(20000);
	}
}

int unit_run(const struct unit_spec *s, struct progress *prog, volatile sig_atomic_t *stop,
	     struct rec_unit_data *u)
{
	struct proto_in in;
	proto_in_init(&in, u);
	struct spawn sp;
	spawn_init(&sp);
	struct rec_unit *x = &u->unit;
	int ret = -1;
	char t[32];

	util_utc_now(t);
	x->start_utc = xstrdup(t);
	sp.argv = s->argv;
	sp.env = s->env;
	sp.dir = s->cache_dir;
	sp.stdout_path = s->stdout_path;
	sp.stderr_path = s->stderr_path;
	sp.record_pipe = 1;
	sp.new_pgroup = 1;
	progress_unit_start(prog, s->id, s->mode, s->block, s->warm);
	int64_t t0 = util_now_ns();
	if (spawn_start(&sp))
		goto done;
	x->pid = sp.pid;

	struct spawn_status st = { 0 };
	int timed_out = 0, stopped = 0;
	if (watch(s, &sp, &in, prog, stop, &st, &timed_out, &stopped)) {
		spawn_kill_group(&sp, SIGKILL);
		spawn_wait(&sp, &st);
		goto done;
	}
	proto_in_end(&in);
	x->wall_ns = util_now_ns() - t0;
	util_utc_now(t);
	x->end_utc = xstrdup(t);
	x->exit_code = st.code;
	x->signal = st.signaled ? st.sig : 0;
	if (stopped) {
		ret = 1;
		goto done;
	}
	struct unit_exit ux = { .timed_out = timed_out, .timeout_s = s->timeout_s,
				.signaled = st.signaled, .sig = st.sig, .code = st.code,
				.stream_error = in.error, .saw_done = in.saw_done,
				.done_status = in.done_status, .done_message = in.done_message };
	char *msg = NULL;
	x->status = xstrdup(unit_status(&ux, &msg));
	x->message = msg;
	x->cache_leak = unit_is_cache_leak(x);
	ret = 0;
done:
	spawn_release(&sp);
	proto_in_release(&in);
	return ret;
}
