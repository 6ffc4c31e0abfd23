/* unit.c: one unit: spawn, watch, kill at the deadline, decide the status (see unit.h) */
#include "config.h"
#include "harness/run/unit.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "harness/config/experiment.h"
#include "harness/record/proto.h"

/* Seconds between SIGTERM and SIGKILL when a unit times out or the run is stopped. */
#define KILL_GRACE_S 2.0

const char *unit_status(const struct unit_exit *x, char **message)
{
	static const char *const known[] = { REC_STATUS_OK, REC_STATUS_COMPILE_ERROR,
					     REC_STATUS_INCORRECT, REC_STATUS_FAILED };
	if (x->over_limit && x->stream_error) {
		*message = xasprintf("%s; killed", x->stream_error);
		return REC_STATUS_BAD_OUTPUT;
	}
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

int unit_is_command_cache_leak(const struct rec_unit *u, unsigned expects)
{
	if (u->warm || !u->status || strcmp(u->status, REC_STATUS_OK))
		return 0;
	return ((expects & MODE_EXPECTS_COMPILE) && u->compiles == 0) ||
	       ((expects & MODE_EXPECTS_BENCHMARK) && u->benchmarks == 0);
}

static const char *last_cell(const struct rec_unit_data *u)
{
	if (u->nmeasures)
		return u->cells[u->measures[u->nmeasures - 1].cell].name;
	if (u->ntrials)
		return u->cells[u->trials[u->ntrials - 1].cell].name;
	return "(setting up)";
}

/* One step of watching a running unit: kill it at its deadline or once stop is set
 * (SIGTERM, SIGKILL a grace period later), read what its record pipe holds (waiting up to
 * wait_ms for it), and reap it.  Returns 1 when it has exited (j->st filled, its last
 * records drained), 0 while it runs, -1 on an infrastructure failure (reported). */
int unit_step(struct unit_job *j, int stop, int wait_ms)
{
	char buf[65536];
	int64_t now = util_now_ns();
	if (!j->kill_at && (now >= j->deadline || stop)) {
		if (now >= j->deadline)
			j->timed_out = 1;
		else
			j->stopped = 1;
		spawn_kill_group(&j->sp, SIGTERM);
		j->kill_at = now + (int64_t)(KILL_GRACE_S * 1e9);
	} else if (j->kill_at && now >= j->kill_at) {
		spawn_kill_group(&j->sp, SIGKILL);
		j->kill_at = INT64_MAX;
	}
	if (j->open) {
		struct pollfd pfd = { .fd = j->sp.rec_fd, .events = POLLIN };
		int pr = poll(&pfd, 1, wait_ms);
		if (pr < 0 && errno != EINTR)
			return error_errno("cannot poll the unit's record pipe");
		if (pr > 0) {
			ssize_t n = read(j->sp.rec_fd, buf, sizeof(buf));
			if (n < 0 && errno != EINTR && errno != EAGAIN)
				return error_errno("cannot read the unit's record pipe");
			if (n == 0) {
				j->open = 0;
			} else if (n > 0) {
				if (proto_in_feed(&j->in, buf, (size_t)n) < 0 && j->in.over_limit &&
				    j->kill_at != INT64_MAX) {
					/* past its limits: nothing more of it is kept */
					spawn_kill_group(&j->sp, SIGKILL);
					j->kill_at = INT64_MAX;
				}
				progress_tick(j->prog, j->spec->mode, last_cell(j->in.u));
			}
		}
	}
	int done = spawn_poll(&j->sp, &j->st);
	if (done < 0)
		return -1;
	if (done == 1) {
		/* Drain what the unit wrote before it exited (the pipe may be held open by a
		 * grandchild: read only what is there now). */
		if (j->open) {
			int fl = fcntl(j->sp.rec_fd, F_GETFL);
			fcntl(j->sp.rec_fd, F_SETFL, fl | O_NONBLOCK);
			ssize_t n;
			while ((n = read(j->sp.rec_fd, buf, sizeof(buf))) > 0)
				proto_in_feed(&j->in, buf, (size_t)n);
		}
		return 1;
	}
	if (!j->open && wait_ms > 0)
		usleep((useconds_t)(wait_ms < 20 ? wait_ms : 20) * 1000);
	return 0;
}

int unit_start(const struct unit_spec *s, struct progress *prog, struct rec_unit_data *u,
	       struct unit_job *j)
{
	char t[32];
	struct rec_unit *x = &u->unit;
	memset(j, 0, sizeof(*j));
	j->spec = s;
	j->prog = prog;
	j->u = u;
	j->open = 1;
	proto_in_init(&j->in, u);
	j->in.lim = proto_limits_with(s->limits.samples, s->limits.info_bytes,
				      s->limits.output_bytes);
	spawn_init(&j->sp);
	util_utc_now(t);
	x->start_utc = xstrdup(t);
	j->sp.argv = s->argv;
	j->sp.env = s->env;
	j->sp.dir = s->cache_dir;
	j->sp.stdout_path = s->stdout_path;
	j->sp.stderr_path = s->stderr_path;
	j->sp.record_pipe = 1;
	j->sp.new_pgroup = 1;
	j->sp.die_with_parent = 1; /* a unit never outlives the harness (the scheduler is one
				    * thread, so the parent thread is the process) */
	j->sp.note_sched = 1; /* read as it ends (unit.h, the CPU note) */
	if (s->protect_dir && !s->no_sandbox) {
		j->sb.protect = s->protect_dir;
		j->sb.writable = s->cache_dir;
		j->sb.shared = s->check_dir;
		j->sp.sandbox = &j->sb;
	}
	progress_unit_start(prog, s->id, s->mode, s->workload, s->block, s->warm);
	j->cpu0_ok = !sysinfo_cpu_sample(&j->cpu0);
	j->t0 = util_now_ns();
	int64_t budget = util_s_to_ns(s->timeout_s);
	j->deadline = util_add_sat(j->t0, budget);
	if (spawn_start(&j->sp)) {
		spawn_release(&j->sp);
		proto_in_release(&j->in);
		return -1;
	}
	x->pid = j->sp.pid;
	j->started = 1;
	return 0;
}

/* The host's CPU note (unit.h), appended to u's info. */
/* u's info so far into sb, ending in a newline (nothing when empty): notes go after it. */
static void info_begin(struct sbuf *sb, const struct rec_unit_data *u)
{
	const char *old = u->info ? u->info : "";
	size_t n = strlen(old);
	sbuf_init(sb);
	sbuf_addf(sb, "%s%s", old, n && old[n - 1] != '\n' ? "\n" : "");
}

/* sb becomes u's info. */
static void info_end(struct sbuf *sb, struct rec_unit_data *u)
{
	free(u->info);
	u->info = sbuf_detach(sb);
}

static void note_host(struct rec_unit_data *u, const struct sysinfo_cpu *a,
		      const struct sysinfo_cpu *b, long ncpu, const struct spawn_status *st,
		      int64_t wall_ns)
{
	double busy = sysinfo_cpu_busy(a, b, ncpu);
	if (busy < 0 || st->cpu_ns < 0 || wall_ns <= 0)
		return;
	struct sbuf sb;
	info_begin(&sb, u);
	sbuf_addf(&sb, "host_cpus=%ld\nhost_busy_cpus=%.3f\nhost_unit_cpus=%.3f\n", ncpu, busy,
		  (double)st->cpu_ns / (double)wall_ns);
	if (st->vcsw >= 0 && st->ivcsw >= 0)
		sbuf_addf(&sb, "host_unit_voluntary_switches=%" PRId64
			       "\nhost_unit_involuntary_switches=%" PRId64 "\n",
			  st->vcsw, st->ivcsw);
	if (st->minflt >= 0 && st->majflt >= 0)
		sbuf_addf(&sb, "host_unit_minor_faults=%" PRId64 "\nhost_unit_major_faults=%" PRId64
			       "\n", st->minflt, st->majflt);
	if (st->migrations >= 0)
		sbuf_addf(&sb, "host_unit_migrations=%lld\n", st->migrations);
	if (st->last_cpu >= 0)
		sbuf_addf(&sb, "host_unit_last_cpu=%d\n", st->last_cpu);
	info_end(&sb, u);
}

/* What held of its sandbox (unit.h), appended to u's info. */
static void note_isolation(struct rec_unit_data *u, const struct sandbox *sb, int off)
{
	char *held = off ? xstrdup("none") : sandbox_held(sb);
	char *refused = off ? xstrdup("all (the experiment's [environment] sandbox = false)")
			    : sandbox_refused(sb);
	struct sbuf s;
	info_begin(&s, u);
	sbuf_addf(&s, "host_unit_isolation=%s\n", held);
	if (*refused)
		sbuf_addf(&s, "host_unit_isolation_refused=%s\n", refused);
	info_end(&s, u);
	free(held);
	free(refused);
}

/* The program a command unit ran, appended to u's info: argv[0] as the unit's PATH
 * resolved it (host_unit_program), the file behind its symbolic links when that differs
 * (host_unit_program_real: /usr/bin/python3 is python3.11) and a script's "#!" line
 * (host_unit_program_script: a version manager's shim picks its interpreter from HOME and
 * the working folder, which are the unit's own). */
static void note_program(struct rec_unit_data *u, const struct unit_spec *s)
{
	char *p = s->argv && s->argv[0] ? spawn_find_program(s->argv[0], s->env) : NULL;
	if (!p)
		return;
	char *real = realpath(p, NULL), *script = spawn_script_line(p);
	struct sbuf sb;
	info_begin(&sb, u);
	sbuf_addf(&sb, "host_unit_program=%s\n", p);
	if (real && strcmp(real, p))
		sbuf_addf(&sb, "host_unit_program_real=%s\n", real);
	if (script)
		sbuf_addf(&sb, "host_unit_program_script=%s\n", script);
	info_end(&sb, u);
	free(p);
	free(real);
	free(script);
}

int unit_finish(struct unit_job *j, int failed)
{
	struct rec_unit *x = &j->u->unit;
	const struct unit_spec *s = j->spec;
	char t[32];
	int ret = -1;
	if (failed) {
		spawn_kill_group(&j->sp, SIGKILL);
		spawn_wait(&j->sp, &j->st);
		goto done;
	}
	proto_in_end(&j->in);
	/* what the unit left running in its process group goes with it */
	spawn_kill_group(&j->sp, SIGKILL);
	x->wall_ns = util_now_ns() - j->t0;
	struct sysinfo_cpu cpu1;
	if (s->note_host && j->cpu0_ok && !sysinfo_cpu_sample(&cpu1))
		note_host(j->u, &j->cpu0, &cpu1, sysconf(_SC_NPROCESSORS_ONLN), &j->st,
			  x->wall_ns);
	if (s->protect_dir)
		note_isolation(j->u, &j->sb, s->no_sandbox);
	if (s->command && s->note_host)
		note_program(j->u, s);
	util_utc_now(t);
	x->end_utc = xstrdup(t);
	x->exit_code = j->st.code;
	x->signal = j->st.signaled ? j->st.sig : 0;
	if (j->stopped) {
		ret = 1;
		goto done;
	}
	struct unit_exit ux = { .timed_out = j->timed_out, .timeout_s = s->timeout_s,
				.signaled = j->st.signaled, .sig = j->st.sig, .code = j->st.code,
				.stream_error = j->in.error, .over_limit = j->in.over_limit,
				.saw_done = j->in.saw_done,
				.done_status = j->in.done_status, .done_message = j->in.done_message };
	char *msg = NULL;
	x->status = xstrdup(unit_status(&ux, &msg));
	x->message = msg;
	if (s->command) {
		/* the mode's word, not the unit's */
		x->expects_work = s->expects != 0;
		x->cache_leak = unit_is_command_cache_leak(x, s->expects);
	} else {
		x->cache_leak = unit_is_cache_leak(x);
	}
	ret = 0;
done:
	spawn_release(&j->sp);
	proto_in_release(&j->in);
	j->started = 0;
	return ret;
}

int unit_run(const struct unit_spec *s, struct progress *prog, volatile sig_atomic_t *stop,
	     struct rec_unit_data *u)
{
	struct unit_job j;
	if (unit_start(s, prog, u, &j))
		return -1;
	int r;
	while ((r = unit_step(&j, *stop != 0, 100)) == 0)
		;
	return unit_finish(&j, r < 0);
}
