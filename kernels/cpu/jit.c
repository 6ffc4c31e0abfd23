/* jit.c: compiles CPU kernel templates at run time into the unit's cache directory and
 * loads them with dlopen.  A kernel is <cache_dir>/<template>-<sha256>.so, where the hash
 * covers everything that decides the binary: template source, kernel.h, compiler path,
 * flags, config macros and the compiler's --version output (docs/kernels.md). */
#include "config.h"
#include "kernels/cpu/cpu.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/spawn.h"

/* Flags every kernel is compiled with; $HARNESS_KERNEL_CFLAGS adds more after them. */
static const char *const base_flags[] = { "-std=c11", "-O3", "-fPIC", "-shared", NULL };

/* Lines of compiler stderr quoted in a compile error's detail. */
#define DETAIL_LINES 8

struct template_src {
	char *path;
	char *text;
	size_t len;
	char sha256[65];
};

struct cpu_jit {
	char *cache_dir;
	char *tmpl_dir;                  /* <kernel_dir>/cpu/templates, given to -I */
	char *cc;                        /* as configured or from $HARNESS_KERNEL_CC */
	char *cc_path;                   /* cc resolved in PATH, for provenance */
	char *cc_version;                /* whole --version output, or "unavailable" */
	char **flags;                    /* base_flags + $HARNESS_KERNEL_CFLAGS, NULL-terminated */
	size_t nflags;
	char **env;                      /* the compiler's environment, NULL-terminated */
	struct template_src header;      /* kernel.h */
	struct template_src tmpl[CPU_NOPS]; /* indexed by template op; conv2d's is empty */
	struct cpu_kernel **kernels;     /* loaded so far */
	size_t nkernels, cap;
	int64_t compiles, cache_hits, compile_ns;
};

static const char *const symbols[CPU_NOPS] = {
	[CPU_SGEMM] = HARNESS_SGEMM_SYMBOL,
	[CPU_MAXPOOL] = HARNESS_MAXPOOL_SYMBOL,
	[CPU_REDUCE] = HARNESS_REDUCE_SYMBOL,
	[CPU_BIAS_RELU] = HARNESS_BIAS_RELU_SYMBOL,
};

/* Read a whole file without reporting (the caller turns failure into a cause). */
static int read_quiet(const char *path, struct template_src *t, char **cause)
{
	FILE *f = fopen(path, "rb");
	struct sbuf sb;
	char buf[8192];
	size_t n;

	if (!f) {
		*cause = xasprintf("cannot read kernel template '%s': %s", path, strerror(errno));
		return -1;
	}
	sbuf_init(&sb);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sbuf_add(&sb, buf, n);
	if (ferror(f)) {
		*cause = xasprintf("cannot read kernel template '%s'", path);
		fclose(f);
		sbuf_release(&sb);
		return -1;
	}
	fclose(f);
	t->path = xstrdup(path);
	t->len = sb.len;
	t->text = sbuf_detach(&sb);
	util_sha256_hex(t->text, t->len, t->sha256);
	return 0;
}

/* The first executable file named cmd in $PATH (cmd itself when it has a '/'), or a copy
 * of cmd when none is found. */
static char *resolve_in_path(const char *cmd)
{
	const char *path = getenv("PATH");
	if (strchr(cmd, '/') || !path)
		return xstrdup(cmd);
	char *copy = xstrdup(path);
	char *found = NULL;
	for (char *dir = copy, *next; dir && !found; dir = next) {
		next = strchr(dir, ':');
		if (next)
			*next++ = '\0';
		char *p = xasprintf("%s/%s", *dir ? dir : ".", cmd);
		if (!access(p, X_OK))
			found = p;
		else
			free(p);
	}
	free(copy);
	return found ? found : xstrdup(cmd);
}

/* The compiler's environment: built, not inherited (STYLE 16): PATH so it finds its own
 * tools, LC_ALL=C for stable messages, TMPDIR when the parent has one. */
static char **build_env(void)
{
	char **env = xcalloc(4, sizeof(*env));
	size_t n = 0;
	const char *path = getenv("PATH"), *tmp = getenv("TMPDIR");
	env[n++] = xasprintf("PATH=%s", path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	env[n++] = xstrdup("LC_ALL=C");
	if (tmp && *tmp)
		env[n++] = xasprintf("TMPDIR=%s", tmp);
	return env;
}

static void add_flag(struct cpu_jit *j, size_t *cap, const char *flag)
{
	xgrow((void **)&j->flags, cap, j->nflags + 2, sizeof(*j->flags));
	j->flags[j->nflags++] = xstrdup(flag);
	j->flags[j->nflags] = NULL;
}

/* "cc --version", once per backend: part of every cache key and of describe(). */
static void probe_version(struct cpu_jit *j)
{
	const char *argv[] = { j->cc, "--version", NULL };
	struct spawn sp;
	struct spawn_status st = { 0 };
	struct sbuf out;

	sbuf_init(&out);
	spawn_init(&sp);
	sp.argv = argv;
	sp.env = (const char *const *)j->env;
	if (!spawn_run(&sp, &out, &st) && st.exited && st.code == 0 && out.len)
		j->cc_version = sbuf_detach(&out);
	else
		j->cc_version = xstrdup("unavailable");
	spawn_release(&sp);
	sbuf_release(&out);
}

struct cpu_jit *cpu_jit_alloc(const char *cache_dir, const char *kernel_dir, char **cause)
{
	struct cpu_jit *j = xcalloc(1, sizeof(*j));
	const char *cc = getenv("HARNESS_KERNEL_CC");
	const char *extra = getenv("HARNESS_KERNEL_CFLAGS");
	size_t cap = 0;

	j->cache_dir = xstrdup(cache_dir);
	j->tmpl_dir = xasprintf("%s/cpu/templates", kernel_dir);
	j->cc = xstrdup(cc && *cc ? cc : HARNESS_KERNEL_CC);
	j->cc_path = resolve_in_path(j->cc);
	j->env = build_env();
	for (size_t i = 0; base_flags[i]; i++)
		add_flag(j, &cap, base_flags[i]);
	if (extra) {
		char *copy = xstrdup(extra);
		for (char *tok = strtok(copy, " \t\n"); tok; tok = strtok(NULL, " \t\n"))
			add_flag(j, &cap, tok);
		free(copy);
	}

	char *path = xasprintf("%s/kernel.h", j->tmpl_dir);
	int bad = read_quiet(path, &j->header, cause);
	free(path);
	for (int op = 0; !bad && op < CPU_NOPS; op++) {
		if (cpu_op_template(op) != (enum cpu_op)op)
			continue;
		path = xasprintf("%s/%s.c", j->tmpl_dir, cpu_op_name(op));
		bad = read_quiet(path, &j->tmpl[op], cause);
		free(path);
	}
	if (bad) {
		cpu_jit_free(j);
		return NULL;
	}
	probe_version(j);
	return j;
}

/* The -D macros of config c: "-DBM=64" ... (heap strings in *macros). */
static size_t config_macros(const struct space *s, const struct config *c, char **macros)
{
	for (size_t f = 0; f < s->nfields; f++)
		macros[f] = xasprintf("-D%s=%" PRId64, s->fields[f].name, c->val[f]);
	return s->nfields;
}

/* SHA-256 over every input that decides the binary, each introduced by its name and
 * terminated by a NUL so no two different inputs concatenate alike. */
static void kernel_hash(const struct cpu_jit *j, enum cpu_op tmpl, char **macros,
			size_t nmacros, char out[65])
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "harness-cpu-kernel-v1");
	sbuf_add(&sb, "", 1);
	sbuf_addf(&sb, "template=%s", cpu_op_name(tmpl));
	sbuf_add(&sb, "", 1);
	sbuf_add(&sb, j->tmpl[tmpl].text, j->tmpl[tmpl].len);
	sbuf_add(&sb, "", 1);
	sbuf_adds(&sb, "kernel.h=");
	sbuf_add(&sb, j->header.text, j->header.len);
	sbuf_add(&sb, "", 1);
	sbuf_addf(&sb, "cc=%s", j->cc);
	sbuf_add(&sb, "", 1);
	for (size_t i = 0; i < j->nflags; i++) {
		sbuf_addf(&sb, "flag=%s", j->flags[i]);
		sbuf_add(&sb, "", 1);
	}
	for (size_t i = 0; i < nmacros; i++) {
		sbuf_addf(&sb, "macro=%s", macros[i]);
		sbuf_add(&sb, "", 1);
	}
	sbuf_addf(&sb, "version=%s", j->cc_version);
	util_sha256_hex(sb.buf, sb.len, out);
	sbuf_release(&sb);
}

/* The first DETAIL_LINES lines of the compiler's stderr log, or "" when it has none. */
static char *log_head(const char *log)
{
	FILE *f = fopen(log, "r");
	struct sbuf sb;
	char line[512];
	int n = 0;

	sbuf_init(&sb);
	if (!f)
		return sbuf_detach(&sb);
	while (n < DETAIL_LINES && fgets(line, sizeof(line), f)) {
		sbuf_adds(&sb, line);
		if (strchr(line, '\n'))
			n++;
	}
	fclose(f);
	while (sb.len && sb.buf[sb.len - 1] == '\n')
		sb.buf[--sb.len] = '\0';
	return sbuf_detach(&sb);
}

/* Compile template tmpl with macros into so_path (through a temporary name, renamed when
 * complete, so a kernel in the cache is always whole).  0 on success; 1 with *detail on a
 * compile failure; -1 with *cause when the cache directory cannot be written. */
static int compile(struct cpu_jit *j, enum cpu_op tmpl, char **macros, size_t nmacros,
		   const char *so_path, const char *log_path, char **detail, char **cause)
{
	char *tmp = xasprintf("%s.tmp%ld", so_path, (long)getpid());
	const char **argv = xcalloc(j->nflags + nmacros + 8, sizeof(*argv));
	size_t n = 0;
	struct spawn sp;
	struct spawn_status st = { 0 };
	int ret = 1;

	argv[n++] = j->cc;
	for (size_t i = 0; i < j->nflags; i++)
		argv[n++] = j->flags[i];
	argv[n++] = "-I";
	argv[n++] = j->tmpl_dir;
	for (size_t i = 0; i < nmacros; i++)
		argv[n++] = macros[i];
	argv[n++] = "-o";
	argv[n++] = tmp;
	argv[n++] = j->tmpl[tmpl].path;
	argv[n] = NULL;

	spawn_init(&sp);
	sp.argv = argv;
	sp.env = (const char *const *)j->env;
	sp.stderr_path = log_path;
	int64_t t0 = util_now_ns();
	int rc = spawn_run(&sp, NULL, &st);
	j->compile_ns += util_now_ns() - t0;
	j->compiles++;
	spawn_release(&sp);

	if (rc) {
		*detail = xasprintf("cannot run the kernel compiler '%s'", j->cc);
	} else if (!st.exited || st.code != 0) {
		char *head = log_head(log_path);
		*detail = xasprintf("'%s' %s %d compiling '%s' (log '%s')%s%s", j->cc,
				    st.signaled ? "was killed by signal" : "exited with status",
				    st.signaled ? st.sig : st.code, j->tmpl[tmpl].path, log_path,
				    *head ? ":\n" : "", head);
		free(head);
	} else if (rename(tmp, so_path)) {
		*cause = xasprintf("cannot rename '%s' to '%s': %s", tmp, so_path, strerror(errno));
		ret = -1;
	} else {
		struct stat sb;
		if (!stat(log_path, &sb) && sb.st_size == 0)
			unlink(log_path); /* keep only logs that say something */
		ret = 0;
	}
	if (ret)
		unlink(tmp);
	free(tmp);
	free(argv);
	return ret;
}

/* dlopen so_path and find tmpl's entry; NULL with *detail on failure. */
static struct cpu_kernel *load(enum cpu_op tmpl, const char *so_path, const char *hash,
			       char **detail)
{
	void *h = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		*detail = xasprintf("cannot load kernel '%s': %s", so_path, e ? e : "unknown error");
		return NULL;
	}
	void *sym = dlsym(h, symbols[tmpl]);
	if (!sym) {
		*detail = xasprintf("kernel '%s' has no symbol '%s'", so_path, symbols[tmpl]);
		dlclose(h);
		return NULL;
	}
	struct cpu_kernel *k = xcalloc(1, sizeof(*k));
	memcpy(k->hash, hash, sizeof(k->hash));
	k->tmpl = tmpl;
	k->handle = h;
	/* POSIX guarantees a data pointer from dlsym converts to a function pointer. */
	switch (tmpl) {
	case CPU_SGEMM: k->fn.sgemm = (harness_sgemm_fn *)sym; break;
	case CPU_MAXPOOL: k->fn.maxpool = (harness_maxpool_fn *)sym; break;
	case CPU_REDUCE: k->fn.reduce = (harness_reduce_fn *)sym; break;
	default: k->fn.bias_relu = (harness_bias_relu_fn *)sym; break;
	}
	return k;
}

/* Kernels this process loaded are reused as they are (not counted again); a .so found in
 * the cache directory but not compiled by this process counts as a cache hit. */
int cpu_jit_get(struct cpu_jit *j, enum cpu_op tmpl, const struct space *s,
		const struct config *c, const struct cpu_kernel **out, struct prepare_result *res,
		char **cause)
{
	char *macros[SPACE_MAX_FIELDS];
	size_t nmacros = config_macros(s, c, macros);
	char hash[65];
	char *so_path = NULL, *log_path = NULL, *detail = NULL;
	struct cpu_kernel *k = NULL;
	int ret = 0;

	*out = NULL;
	kernel_hash(j, tmpl, macros, nmacros, hash);
	for (size_t i = 0; i < j->nkernels; i++) {
		if (j->kernels[i]->tmpl == tmpl && !strcmp(j->kernels[i]->hash, hash)) {
			res->cache_hit = 1;
			*out = j->kernels[i];
			goto done;
		}
	}
	so_path = xasprintf("%s/%s-%s.so", j->cache_dir, cpu_op_name(tmpl), hash);
	log_path = xasprintf("%s/%s-%s.log", j->cache_dir, cpu_op_name(tmpl), hash);
	if (!access(so_path, F_OK)) {
		res->cache_hit = 1;
		j->cache_hits++;
	} else {
		int64_t t0 = util_now_ns();
		int rc = compile(j, tmpl, macros, nmacros, so_path, log_path, &detail, cause);
		res->compile_ns = util_now_ns() - t0;
		if (rc < 0) {
			ret = -1;
			goto done;
		}
		if (rc > 0)
			goto done;
	}
	k = load(tmpl, so_path, hash, &detail);
	if (!k)
		goto done;
	XGROW(j->kernels, j->cap, j->nkernels + 1);
	j->kernels[j->nkernels++] = k;
	*out = k;
done:
	if (detail) {
		res->status = PREPARE_COMPILE_ERROR;
		res->detail = detail;
	}
	for (size_t i = 0; i < nmacros; i++)
		free(macros[i]);
	free(so_path);
	free(log_path);
	return ret;
}

void cpu_jit_counters(const struct cpu_jit *j, struct backend_counters *out)
{
	out->compiles = j->compiles;
	out->cache_hits = j->cache_hits;
	out->compile_ns = j->compile_ns;
}

void cpu_jit_describe(const struct cpu_jit *j, struct sbuf *out)
{
	size_t eol = strcspn(j->cc_version, "\n");
	sbuf_addf(out, "compiler=%s\n", j->cc);
	sbuf_addf(out, "compiler_path=%s\n", j->cc_path);
	sbuf_addf(out, "compiler_version=%.*s\n", (int)eol, j->cc_version);
	sbuf_adds(out, "cflags=");
	for (size_t i = 0; i < j->nflags; i++)
		sbuf_addf(out, "%s%s", i ? " " : "", j->flags[i]);
	sbuf_adds(out, "\ncompiler_env=");
	for (size_t i = 0; j->env[i]; i++)
		sbuf_addf(out, "%s%.*s", i ? " " : "", (int)strcspn(j->env[i], "="), j->env[i]);
	sbuf_addf(out, "\ntemplate_dir=%s\n", j->tmpl_dir);
	sbuf_addf(out, "template_kernel.h_sha256=%s\n", j->header.sha256);
	for (int op = 0; op < CPU_NOPS; op++)
		if (j->tmpl[op].text)
			sbuf_addf(out, "template_%s.c_sha256=%s\n", cpu_op_name(op),
				  j->tmpl[op].sha256);
}

static void template_release(struct template_src *t)
{
	free(t->path);
	free(t->text);
}

void cpu_jit_free(struct cpu_jit *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nkernels; i++) {
		dlclose(j->kernels[i]->handle);
		free(j->kernels[i]);
	}
	free(j->kernels);
	template_release(&j->header);
	for (int op = 0; op < CPU_NOPS; op++)
		template_release(&j->tmpl[op]);
	for (size_t i = 0; i < j->nflags; i++)
		free(j->flags[i]);
	free(j->flags);
	for (size_t i = 0; j->env && j->env[i]; i++)
		free(j->env[i]);
	free(j->env);
	free(j->cache_dir);
	free(j->tmpl_dir);
	free(j->cc);
	free(j->cc_path);
	free(j->cc_version);
	free(j);
}
