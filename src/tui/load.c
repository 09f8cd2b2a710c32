/* Where the review screen's results come from (session.h), as they come:
 * results files read in the background while the first frame shows, the
 * environments to run here started in the background, and the whole judged
 * again whenever the runner or the reading wakes the screen through its
 * pipe. */
#define _GNU_SOURCE
#include "load.h"

#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/session.h"

void tui_rejudge(tui *t)
{
    px_error err = {0};
    if (t->run)
        runner_lock(t->run);
    if (t->judged)
        judgement_free(&t->j);
    free(t->since), t->since = NULL;
    px_verdicts v;
    t->judged = session_judge(&t->cs, &v, &err) == 0;
    if (t->judged)
        t->j = v.j, t->since = v.since; /* the screen's now: freed as it judges again */
    t->rv.j = t->judged ? &t->j : NULL;
    if (!t->judged)
        snprintf(t->msg, sizeof t->msg, "%s", err.msg);
    review_refilter(&t->rv);
    if (t->run)
        runner_unlock(t->run);
}

/* Results files are read in the background, so that the first frame comes
 * as soon as the fixture is read: the screen stands in for their
 * environments with "loading…" until the session is open (the files read,
 * checked and their inputs processed), then takes it at once and starts
 * what runs here. */
typedef struct tui_load {
    pthread_t thread;
    const px_fixture *f;
    px_session_opts o;
    int wake_w;
    px_check cs;
    int ok;
    px_error err;
    atomic_int done;
} tui_load;

static void *load_main(void *arg)
{
    tui_load *l = arg;
    l->ok = session_open(&l->cs, l->f, &l->o, &l->err) == 0;
    atomic_store(&l->done, 1);
    ssize_t n = write(l->wake_w, "l", 1); /* the loop wakes */
    (void)n;
    return NULL;
}

/* The environments to run here start in the background. */
static int start_runs(tui *t, px_error *err)
{
    int rc = session_start(&t->cs, err);
    t->run = t->cs.run;
    return rc;
}

/* The last good configurations, shown on the ladder, the session read
 * (PX_HISTORY_NOTE). The screen never writes them (check does), and one
 * that cannot be read is said on the status line: the review goes on
 * without it. */
void tui_load_history(tui *t)
{
    char line[2048];
    if (!t->cs.history_err.code)
        return;
    px_error_format(&t->cs.history_err, line, sizeof line);
    tui_say(t, "%s (last good configurations not shown)", line);
}

/* Take what the background read (it is done): the stand-in goes. */
static unsigned load_take(tui *t)
{
    tui_load *l = t->load;
    pthread_join(l->thread, NULL);
    t->load = NULL;
    if (!l->ok) {
        t->load_failed = 1, t->load_err = l->err;
        free(l);
        return PX_RE_QUIT;
    }
    results_free(t->res); /* the stand-in */
    t->cs = l->cs;
    t->res = t->cs.res;
    t->rv.res = t->res, t->rv.candidate = session_first_candidate(t->res);
    free(l);
    tui_load_history(t);
    px_error err = {0};
    if (start_runs(t, &err)) {
        t->load_failed = 1, t->load_err = err;
        return PX_RE_QUIT;
    }
    return PX_RE_ALL;
}

unsigned tui_load_wait(tui *t)
{
    if (!t->load)
        return PX_RE_NONE;
    while (!atomic_load(&t->load->done))
        poll(&(struct pollfd){t->wake, POLLIN, 0}, 1, 100);
    return tui_drain_wake(t);
}

unsigned tui_drain_wake(tui *t)
{
    char buf[256];
    unsigned r = PX_RE_ALL;
    while (read(t->wake, buf, sizeof buf) > 0)
        ;
    if (t->load && atomic_load(&t->load->done))
        r = load_take(t);
    if (r & PX_RE_QUIT)
        return r;
    if (!t->load)
        tui_rejudge(t);
    return r;
}

/* Every environment the contract names, from where its results come
 * (session.h). With results files (--results) the session opens in the
 * background, a stand-in shown meanwhile; otherwise at once. Either way
 * the environments to run here start in the background. */
int tui_gather(tui *t, const px_session_opts *so, px_error *err)
{
    if (!t->f->model_sha256)
        return px_error_set(err, PX_ERR_MISMATCH, t->f->path, t->f->model_loc.line, t->f->model_loc.col,
                            "contract.model has no sha256: pin the model revision before reviewing against it");
    if (so->n_results) {
        /* The stand-in: no environment yet (the header says they load). */
        tui_load *l = calloc(1, sizeof *l);
        if (!l || !(t->res = calloc(1, sizeof *t->res))) {
            free(l);
            return px_error_oom(err, NULL);
        }
        t->res->n_examples = t->f->n_examples, t->res->reference = -1;
        l->f = t->f, l->o = *so, l->wake_w = t->wake_w;
#ifdef M_ARENA_MAX
        /* One malloc arena for both threads: with a second, what the
         * reading thread frees (each streamed item, the files' copies) is
         * not reused by the screen's, and sits in RSS (10 000 examples:
         * 4 MiB). */
        mallopt(M_ARENA_MAX, 1);
#endif
        if (pthread_create(&l->thread, NULL, load_main, l)) {
            free(l);
            return px_error_oom(err, NULL);
        }
        t->load = l;
        return 0;
    }
    if (session_open(&t->cs, t->f, so, err))
        return -1;
    t->res = t->cs.res;
    return start_runs(t, err);
}
