/* The runner's state: the helpers its parts read it with (run_state.h). */
#include "run_state.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

double state_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

px_stop state_stop_of(px_runner *r) { return (px_stop)__atomic_load_n(&r->stop, __ATOMIC_SEQ_CST); }

int state_must_stop(px_runner *r)
{
    if (state_stop_of(r) == PX_STOP_NONE && r->deadline > 0 && state_now() >= r->deadline) {
        int none = PX_STOP_NONE;
        __atomic_compare_exchange_n(&r->stop, &none, PX_STOP_BUDGET, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
    return state_stop_of(r) != PX_STOP_NONE;
}

const char *state_stop_words(px_runner *r)
{
    switch (state_stop_of(r)) {
    case PX_STOP_INTERRUPT: return "interrupted";
    case PX_STOP_BUDGET: return r->budget_words;
    default: return "run cancelled";
    }
}

void state_notify(px_runner *r)
{
    if (r->opts.notify_fd > 0) {
        ssize_t w = write(r->opts.notify_fd, "!", 1);
        (void)w;
    }
}

char *state_scrub(px_runner *r, char *s)
{
    if (!s || !r->redact)
        return s;
    pthread_mutex_lock(&r->redact_mu);
    char *t = redact_text(r->redact, s);
    pthread_mutex_unlock(&r->redact_mu);
    free(s);
    return t;
}

void state_set_progress(px_runner *r, int env, int example)
{
    pthread_mutex_lock(&r->mu);
    r->prog[env] = example;
    r->steps[2 * env] = r->steps[2 * env + 1] = 0;
    pthread_mutex_unlock(&r->mu);
    state_notify(r);
}

void state_set_steps(px_runner *r, int env, int done, int of)
{
    pthread_mutex_lock(&r->mu);
    r->steps[2 * env] = done, r->steps[2 * env + 1] = of;
    pthread_mutex_unlock(&r->mu);
}
