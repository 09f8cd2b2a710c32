/* Themes for the review screen: the built-in default and mono themes, the
 * theme file parser, and the lookup of NAME.theme along a list of
 * directories. Deliberately no curses here (see theme.h). */
#include "parity/self.h"
#include "parity/theme.h"

#include <unistd.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <utf8proc.h>

/* A theme is a screenful of settings; anything far larger is not one, and
 * reading it whole would only waste memory. */
#define MAX_THEME_BYTES (1 << 20)
/* A setting is a few words; a line this long is data, not a theme. */
#define MAX_LINE_BYTES 4096
/* What escaped() writes at most: 63 units of up to 4 bytes ("\xNN" or one
 * UTF-8 character), "..." and the NUL. */
#define SHOWN_SIZE 256
/* Deep enough for any sensible layering, shallow enough to stop a chain of
 * distinct names (which no cycle check catches) early. */
#define MAX_INHERIT 8

static const char *const element_names[PX_EL_COUNT] = {
    [PX_EL_NORMAL] = "normal",
    [PX_EL_DIM] = "dim",
    [PX_EL_BORDER] = "border",
    [PX_EL_TITLE] = "title",
    [PX_EL_HEADER] = "header",
    [PX_EL_SELECTION] = "selection",
    [PX_EL_REFERENCE] = "reference",
    [PX_EL_CANDIDATE] = "candidate",
    [PX_EL_PASS] = "pass",
    [PX_EL_PASS_TOL] = "pass-tol",
    [PX_EL_FAIL] = "fail",
    [PX_EL_DRIFT] = "drift",
    [PX_EL_ERROR] = "error",
    [PX_EL_UNSUPPORTED] = "unsupported",
    [PX_EL_REJECTED] = "rejected",
    [PX_EL_NOT_EVALUATED] = "not-evaluated",
    [PX_EL_RUNNING] = "running",
    [PX_EL_DECISION] = "decision",
    [PX_EL_FLAG] = "flag",
    [PX_EL_CHANGED] = "changed",
    [PX_EL_BAR] = "bar",
    [PX_EL_STATUS] = "status",
    [PX_EL_SEARCH_MATCH] = "search-match",
    [PX_EL_HELP_KEY] = "help-key",
};

enum {
    DEF = PX_COLOR_DEFAULT, BLACK = 0, RED, GREEN, YELLOW, BLUE, MAGENTA, CYAN, WHITE,
    BR_BLACK, BR_RED, BR_GREEN, BR_YELLOW, BR_BLUE, BR_MAGENTA, BR_CYAN, BR_WHITE,
};

static const struct {
    const char *name;
    int value;
} colors[] = {
    {"default", DEF},           {"black", BLACK},         {"red", RED},
    {"green", GREEN},           {"yellow", YELLOW},       {"blue", BLUE},
    {"magenta", MAGENTA},       {"cyan", CYAN},           {"white", WHITE},
    {"bright-black", BR_BLACK}, {"bright-red", BR_RED},   {"bright-green", BR_GREEN},
    {"bright-yellow", BR_YELLOW}, {"bright-blue", BR_BLUE}, {"bright-magenta", BR_MAGENTA},
    {"bright-cyan", BR_CYAN},   {"bright-white", BR_WHITE},
};

static const struct {
    const char *name;
    unsigned bit;
} attr_names[] = {
    {"bold", PX_ATTR_BOLD},
    {"dim", PX_ATTR_DIM},
    {"reverse", PX_ATTR_REVERSE},
    {"underline", PX_ATTR_UNDERLINE},
};

enum { B = PX_ATTR_BOLD, D = PX_ATTR_DIM, R = PX_ATTR_REVERSE, U = PX_ATTR_UNDERLINE };

/* Keep in step with themes/default.theme (a test compares them). Outcomes
 * differ by colour alone, so they stay apart even where bold is not shown. */
static const px_style default_styles[PX_EL_COUNT] = {
    [PX_EL_NORMAL] = {DEF, DEF, 0},
    [PX_EL_DIM] = {BR_BLACK, DEF, 0},
    [PX_EL_BORDER] = {BR_BLACK, DEF, 0},
    [PX_EL_TITLE] = {BR_WHITE, DEF, B},
    [PX_EL_HEADER] = {BLACK, CYAN, 0},
    [PX_EL_SELECTION] = {BR_WHITE, BLUE, B},
    [PX_EL_REFERENCE] = {CYAN, DEF, 0},
    [PX_EL_CANDIDATE] = {MAGENTA, DEF, 0},
    [PX_EL_PASS] = {GREEN, DEF, 0},
    [PX_EL_PASS_TOL] = {CYAN, DEF, 0},
    [PX_EL_FAIL] = {BR_RED, DEF, B},
    [PX_EL_DRIFT] = {YELLOW, DEF, 0},
    [PX_EL_ERROR] = {BR_WHITE, RED, B},
    [PX_EL_UNSUPPORTED] = {MAGENTA, DEF, 0},
    [PX_EL_REJECTED] = {BR_BLUE, DEF, 0},
    [PX_EL_NOT_EVALUATED] = {BR_BLACK, DEF, 0},
    [PX_EL_RUNNING] = {BR_CYAN, DEF, 0},
    [PX_EL_DECISION] = {BR_YELLOW, DEF, 0},
    [PX_EL_FLAG] = {BR_MAGENTA, DEF, B},
    [PX_EL_CHANGED] = {DEF, DEF, B | U},
    [PX_EL_BAR] = {CYAN, DEF, 0},
    [PX_EL_STATUS] = {BLACK, WHITE, 0},
    [PX_EL_SEARCH_MATCH] = {BLACK, YELLOW, 0},
    [PX_EL_HELP_KEY] = {YELLOW, DEF, B},
};

/* Keep in step with themes/mono.theme. With no colour to lean on, every
 * outcome gets its own attributes; fail and error the loudest. */
#define M(a) {DEF, DEF, (a)}
static const px_style mono_styles[PX_EL_COUNT] = {
    [PX_EL_NORMAL] = M(0),          [PX_EL_DIM] = M(D),
    [PX_EL_BORDER] = M(D),          [PX_EL_TITLE] = M(B),
    [PX_EL_HEADER] = M(B | U),      [PX_EL_SELECTION] = M(R),
    [PX_EL_REFERENCE] = M(0),       [PX_EL_CANDIDATE] = M(B),
    [PX_EL_PASS] = M(0),            [PX_EL_PASS_TOL] = M(U),
    [PX_EL_FAIL] = M(B),            [PX_EL_DRIFT] = M(B | U),
    [PX_EL_ERROR] = M(B | R),       [PX_EL_UNSUPPORTED] = M(D | U),
    [PX_EL_REJECTED] = M(D | R),    [PX_EL_NOT_EVALUATED] = M(D),
    [PX_EL_RUNNING] = M(U),         [PX_EL_DECISION] = M(B),
    [PX_EL_FLAG] = M(B | U),        [PX_EL_CHANGED] = M(U),
    [PX_EL_BAR] = M(R),             [PX_EL_STATUS] = M(R),
    [PX_EL_SEARCH_MATCH] = M(R | U), [PX_EL_HELP_KEY] = M(B),
};
#undef M

void theme_default(px_theme *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "default");
    memcpy(out->style, default_styles, sizeof out->style);
    out->unicode_symbols = 1;
}

void theme_mono(px_theme *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "mono");
    memcpy(out->style, mono_styles, sizeof out->style);
    out->unicode_symbols = 0; /* a terminal without colour may lack the glyphs too */
}

const char *theme_element_name(int el)
{
    return el >= 0 && el < PX_EL_COUNT ? element_names[el] : NULL;
}

int theme_element_from_name(const char *name)
{
    for (int i = 0; name && i < PX_EL_COUNT; i++)
        if (!strcmp(element_names[i], name))
            return i;
    return -1;
}

int theme_style_equal(const px_style *a, const px_style *b)
{
    return a->fg == b->fg && a->bg == b->bg && a->attrs == b->attrs;
}

int theme_color_wanted(const char *color_flag, int is_tty)
{
    if (color_flag && !strcmp(color_flag, "never"))
        return 0;
    if (color_flag && !strcmp(color_flag, "always"))
        return 1;
    if (color_flag && strcmp(color_flag, "auto"))
        return -1;
    const char *no_color = getenv("NO_COLOR");
    if (no_color && no_color[0])
        return 0;
    return is_tty ? 1 : 0;
}

void theme_shipped_dir(char *buf, size_t size)
{
    static const char *const tails[] = {"/../share/parity/themes", "/../themes", "/../../themes"};
    char dir[4096];
    self_dir(dir, sizeof dir);
    for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
        snprintf(buf, size, "%s%s", dir, tails[i]);
        if (access(buf, R_OK) == 0)
            return;
    }
}

int theme_user_dir(char *buf, size_t size)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int n = -1;
    /* The XDG spec says to ignore a relative XDG_CONFIG_HOME. */
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, size, "%s/parity/themes", xdg);
    else if (home && home[0])
        n = snprintf(buf, size, "%s/.config/parity/themes", home);
    if (n < 0 || (size_t)n >= size) {
        if (size)
            buf[0] = '\0';
        return -1;
    }
    return 0;
}

/* ---- text as a message shows it ----------------------------------------- */

/* The length of the UTF-8 character at s (n > 0 bytes left), its code point
 * in *cp; 0 when the bytes there are not UTF-8 (overlong forms and
 * surrogates included, as the fixture loader's check has it). */
static size_t char_at(const char *s, size_t n, utf8proc_int32_t *cp)
{
    utf8proc_ssize_t k =
        utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)(n < 4 ? n : 4), cp);
    return k > 0 ? (size_t)k : 0;
}

/* Characters a terminal acts on instead of showing: C0 and C1 controls,
 * DEL, and the bidi controls that reorder what follows (textcell.h). */
static int is_control(utf8proc_int32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061C || cp == 0x200E ||
           cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

/* s[0..n) as a message quotes it, in out (SHOWN_SIZE bytes): at most max
 * (<= 63) units, then "..."; a unit is a character, or one byte of a
 * control or of something not UTF-8 written as \xNN. Whatever a file
 * holds, a message stays one line of valid UTF-8 that cannot drive the
 * terminal. */
static const char *escaped(const char *s, size_t n, size_t max, char *out)
{
    size_t o = 0, units = 0, i = 0;
    while (i < n && units < max) {
        utf8proc_int32_t cp;
        size_t k = char_at(s + i, n - i, &cp);
        if (k && !is_control(cp)) {
            memcpy(out + o, s + i, k);
            o += k, i += k, units++;
            continue;
        }
        for (size_t end = i + (k ? k : 1); i < end && units < max; i++, units++)
            o += (size_t)snprintf(out + o, SHOWN_SIZE - o, "\\x%02X", (unsigned char)s[i]);
    }
    snprintf(out + o, SHOWN_SIZE - o, "%s", i < n ? "..." : "");
    return out;
}

/* A name becomes part of a path, so nothing that could leave the directory. */
static int name_ok(const char *s, size_t n)
{
    if (n == 0 || n >= 64)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_'))
            return 0;
    }
    return 1;
}

/* ---- loading: directories, files, inherit chains ------------------------ */

typedef struct loader {
    const char *const *dirs;
    size_t n_dirs;
    const char *chain[MAX_INHERIT + 1]; /* names being loaded, outermost first */
    int depth;
    px_error *err;
} loader;

/* Where an error about finding or reading a theme points: the inherit line
 * that named it; file NULL for the theme theme_load was asked for. */
typedef struct site {
    const char *file;
    int line, col;
} site;

static int site_error(loader *ld, const site *at, const char *fallback_file, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int site_error(loader *ld, const site *at, const char *fallback_file, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (at->file)
        return px_error_set(ld->err, PX_ERR_MALFORMED, at->file, at->line, at->col, "%s", msg);
    return px_error_set(ld->err, PX_ERR_MALFORMED, fallback_file, 0, 0, "%s", msg);
}

static int missing_error(loader *ld, const char *name, const site *at)
{
    char list[900] = "";
    size_t used = 0;
    for (size_t i = 0; i < ld->n_dirs && used < sizeof list; i++) {
        if (!ld->dirs[i] || !ld->dirs[i][0])
            continue;
        int n = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", ld->dirs[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    if (!list[0])
        return site_error(ld, at, "", "no theme '%s': no theme directories to look in", name);
    return site_error(ld, at, "", "no theme '%s' in: %s", name, list);
}

/* The first dir holding NAME.theme, its path in path. Something there that
 * cannot be read is an error, not a reason to look further: silently
 * skipping the user's own theme would be worse than saying why. */
static int find_theme(loader *ld, const char *name, char *path, size_t size, const site *at)
{
    for (size_t i = 0; i < ld->n_dirs; i++) {
        if (!ld->dirs[i] || !ld->dirs[i][0])
            continue;
        int n = snprintf(path, size, "%s/%s.theme", ld->dirs[i], name);
        if (n < 0 || (size_t)n >= size)
            continue;
        struct stat st;
        if (stat(path, &st) == 0) {
            if (S_ISREG(st.st_mode))
                return 0;
            return site_error(ld, at, path, "cannot read theme '%s' (%s): not a regular file", name,
                              path);
        }
        if (errno != ENOENT && errno != ENOTDIR)
            return site_error(ld, at, path, "cannot read theme '%s' (%s): %s", name, path,
                              strerror(errno));
    }
    return missing_error(ld, name, at);
}

static char *read_theme(loader *ld, const char *name, const char *path, size_t *len,
                        const site *at)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        site_error(ld, at, path, "cannot read theme '%s' (%s): %s", name, path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(MAX_THEME_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_THEME_BYTES + 1, f) : 0;
    int bad = !buf || ferror(f), saved = buf ? errno : ENOMEM;
    fclose(f);
    if (!bad && n <= MAX_THEME_BYTES) {
        *len = n;
        return buf;
    }
    free(buf);
    if (bad)
        site_error(ld, at, path, "cannot read theme '%s' (%s): %s", name, path, strerror(saved));
    else
        site_error(ld, at, path, "theme '%s' (%s) is larger than 1 MiB", name, path);
    return NULL;
}

static int parse_text(loader *ld, const char *path, const char *name, const char *text,
                      size_t len, px_theme *out);

static int cycle_error(loader *ld, const char *name, const site *at)
{
    char chain[600] = "";
    size_t used = 0;
    for (int i = 0; i < ld->depth && used < sizeof chain; i++) {
        int n = snprintf(chain + used, sizeof chain - used, "%s -> ", ld->chain[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    return site_error(ld, at, "", "cyclic inherit: %s%s", chain, name);
}

static int load_named(loader *ld, const char *name, px_theme *out, const site *at)
{
    char b[SHOWN_SIZE];
    if (!name_ok(name, strlen(name)))
        return site_error(ld, at, "",
                          "bad theme name '%s': use letters, digits, '-' and '_' (at most 63)",
                          escaped(name, strlen(name), 60, b));
    for (int i = 0; i < ld->depth; i++)
        if (!strcmp(ld->chain[i], name))
            return cycle_error(ld, name, at);
    if (ld->depth >= MAX_INHERIT)
        return site_error(ld, at, "", "inherit chain deeper than %d themes at '%s'", MAX_INHERIT,
                          name);
    char path[4096];
    size_t len;
    char *text;
    if (find_theme(ld, name, path, sizeof path, at) ||
        !(text = read_theme(ld, name, path, &len, at)))
        return -1;
    ld->chain[ld->depth++] = name;
    int rc = parse_text(ld, path, name, text, len, out);
    ld->depth--;
    free(text);
    return rc;
}

int theme_load(const char *name, const char *const *dirs, size_t n_dirs, px_theme *out,
               px_error *err)
{
    loader ld = {.dirs = dirs, .n_dirs = n_dirs, .err = err};
    site top = {NULL, 0, 0};
    return load_named(&ld, name ? name : "", out, &top);
}

int theme_parse(const char *path, const char *text, size_t len, px_theme *out, px_error *err)
{
    /* The name is the base name less ".theme"; inherit looks beside the file. */
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t n = strlen(base);
    if (n > 6 && !strcmp(base + n - 6, ".theme"))
        n -= 6;
    char name[64], dir[4096];
    snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), base);
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    const char *dirs[1] = {dir};
    loader ld = {.dirs = dirs, .n_dirs = 1, .err = err};
    ld.chain[ld.depth++] = name;
    return parse_text(&ld, path, name, text, len, out);
}

/* ---- the file format ---------------------------------------------------- */

typedef struct pctx {
    loader *ld;
    const char *path;
    int line;
    const char *ls; /* start of the current line, for columns */
    px_theme *t;
    int settings; /* settings so far: an inherit must be the first */
} pctx;

typedef struct word {
    const char *p;
    size_t n;
} word;

/* Columns count characters, as the fixture loader's do, so they match what
 * an editor shows (UTF-8 continuation bytes do not start one). */
static int col_at(const pctx *c, const char *p)
{
    int col = 1;
    for (const char *q = c->ls; q < p; q++)
        col += ((unsigned char)*q & 0xC0) != 0x80;
    return col;
}

static int fail_at(const pctx *c, const char *p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(const pctx *c, const char *p, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return px_error_set(c->ld->err, PX_ERR_MALFORMED, c->path, c->line, col_at(c, p), "%s", msg);
}

/* A word as an error message quotes it. */
static const char *shown(word w, char buf[SHOWN_SIZE])
{
    return escaped(w.p, w.n, 60, buf);
}

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* The next word at or after *p, which is left just past it (or at a '='
 * ending it when stop_eq). n == 0 at the end of the line or a comment. */
static word next_word(const char **p, const char *end, int stop_eq)
{
    const char *s = *p;
    while (s < end && is_space(*s))
        s++;
    word w = {s, 0};
    if (s < end && *s == '#') {
        *p = end;
        return w;
    }
    while (s < end && !is_space(*s) && !(stop_eq && *s == '='))
        s++;
    w.n = (size_t)(s - w.p);
    *p = s;
    return w;
}

static int word_is(word w, const char *s)
{
    return strlen(s) == w.n && !memcmp(w.p, s, w.n);
}

/* 0 and the colour in *out; 1 not a colour; 2 a number outside 0-255. */
static int color_of(word w, int *out)
{
    size_t i = w.n && w.p[0] == '-' ? 1 : 0, digits = 0;
    int value = 0;
    for (; i + digits < w.n && w.p[i + digits] >= '0' && w.p[i + digits] <= '9'; digits++)
        if (value <= 255)
            value = value * 10 + (w.p[i + digits] - '0');
    if (digits && i + digits == w.n) {
        if (i || value > 255)
            return 2;
        *out = value;
        return 0;
    }
    for (size_t k = 0; k < sizeof colors / sizeof colors[0]; k++)
        if (word_is(w, colors[k].name)) {
            *out = colors[k].value;
            return 0;
        }
    return 1;
}

static unsigned attr_of(word w)
{
    for (size_t k = 0; k < sizeof attr_names / sizeof attr_names[0]; k++)
        if (word_is(w, attr_names[k].name))
            return attr_names[k].bit;
    return 0;
}

/* A colour where the grammar wants one: after '=' or after "on". */
static int want_color(const pctx *c, word w, int *out)
{
    char b[SHOWN_SIZE];
    int rc = color_of(w, out);
    if (rc == 1)
        return fail_at(c, w.p, "unknown colour '%s'", shown(w, b));
    if (rc == 2)
        return fail_at(c, w.p, "colour number %s out of range 0-255", shown(w, b));
    return 0;
}

/* One word after the first: "on BG", an attribute, or a mistake. */
static int style_word(const pctx *c, word w, const char **p, const char *le, px_style *s,
                      int *have_bg)
{
    char b[SHOWN_SIZE];
    int color;
    if (word_is(w, "on")) {
        word bg = next_word(p, le, 0);
        if (*have_bg)
            return fail_at(c, w.p, "a second 'on': one background only");
        if (!bg.n)
            return fail_at(c, bg.p, "missing colour after 'on'");
        *have_bg = 1;
        return want_color(c, bg, &s->bg);
    }
    unsigned bit = attr_of(w);
    if (bit) {
        s->attrs |= bit;
        return 0;
    }
    int rc = color_of(w, &color);
    if (rc == 2)
        return want_color(c, w, &color);
    if (rc == 0)
        return fail_at(c, w.p, "a second colour '%s': write 'on %s' for a background",
                       shown(w, b), b);
    return fail_at(c, w.p, "unknown attribute '%s'", shown(w, b));
}

/* ELEMENT = [FG] [on BG] [bold] [dim] [reverse] [underline] */
static int parse_style(pctx *c, int el, const char *p, const char *le)
{
    px_style s = {DEF, DEF, 0};
    int have_bg = 0;
    word w = next_word(&p, le, 0);
    if (!w.n)
        return fail_at(c, w.p, "missing style after '%s ='", element_names[el]);
    if (!word_is(w, "on") && !attr_of(w)) {
        if (want_color(c, w, &s.fg))
            return -1;
        w = next_word(&p, le, 0);
    }
    for (; w.n; w = next_word(&p, le, 0))
        if (style_word(c, w, &p, le, &s, &have_bg))
            return -1;
    c->t->style[el] = s;
    return 0;
}

/* The single word after "KEY ="; a second one is an error. */
static int one_value(const pctx *c, const char *key, const char *p, const char *le, word *w)
{
    char b[SHOWN_SIZE], v[SHOWN_SIZE];
    *w = next_word(&p, le, 0);
    if (!w->n)
        return fail_at(c, w->p, "missing value after '%s ='", key);
    word extra = next_word(&p, le, 0);
    if (extra.n)
        return fail_at(c, extra.p, "unexpected '%s' after '%s = %s'", shown(extra, b), key,
                       shown(*w, v));
    return 0;
}

static int parse_symbols(pctx *c, const char *p, const char *le)
{
    char b[SHOWN_SIZE];
    word w;
    if (one_value(c, "symbols", p, le, &w))
        return -1;
    if (word_is(w, "ascii") || word_is(w, "unicode")) {
        c->t->unicode_symbols = word_is(w, "unicode");
        return 0;
    }
    return fail_at(c, w.p, "unknown symbols '%s': ascii or unicode", shown(w, b));
}

/* Load the named theme into the one being parsed; being first, it only
 * replaces the built-in defaults, never a setting of this file. */
static int parse_inherit(pctx *c, word key, const char *p, const char *le)
{
    char b[SHOWN_SIZE], name[64];
    word w;
    if (c->settings)
        return fail_at(c, key.p, "'inherit' must come before any other setting");
    if (one_value(c, "inherit", p, le, &w))
        return -1;
    if (!name_ok(w.p, w.n))
        return fail_at(c, w.p, "bad theme name '%s': use letters, digits, '-' and '_' (at most 63)",
                       shown(w, b));
    snprintf(name, sizeof name, "%.*s", (int)w.n, w.p);
    site at = {c->path, c->line, col_at(c, w.p)};
    px_theme base;
    if (load_named(c->ld, name, &base, &at))
        return -1;
    *c->t = base;
    return 0;
}

static int parse_line(pctx *c, const char *p, const char *le)
{
    char b[SHOWN_SIZE];
    word key = next_word(&p, le, 1);
    while (p < le && is_space(*p))
        p++;
    if (!key.n && (p == le || *p != '='))
        return 0; /* blank or comment */
    if (!key.n)
        return fail_at(c, p, "missing element name before '='");
    if (p == le || *p != '=')
        return fail_at(c, p, "missing '=' after '%s'", shown(key, b));
    p++;
    int rc, el = -1;
    if (word_is(key, "inherit"))
        rc = parse_inherit(c, key, p, le);
    else if (word_is(key, "symbols"))
        rc = parse_symbols(c, p, le);
    else {
        for (int i = 0; i < PX_EL_COUNT && el < 0; i++)
            if (word_is(key, element_names[i]))
                el = i;
        if (el < 0)
            return fail_at(c, key.p, "unknown element '%s'", shown(key, b));
        rc = parse_style(c, el, p, le);
    }
    c->settings++;
    return rc;
}

/* Text that is not a theme file's kind: what is wrong at `at`, the text
 * around it escaped, so a binary file is recognisable ("\x89PNG") without
 * sending its bytes to the terminal. */
static int not_a_theme(const pctx *c, const char *name, const char *at, const char *end,
                       const char *what)
{
    const char *le = memchr(at, '\n', (size_t)(end - at));
    le = le ? le : end;
    if (le - at > 1 && le[-1] == '\r')
        le--;
    const char *from = at - c->ls > 24 ? at - 24 : c->ls;
    while (from < at && ((unsigned char)*from & 0xC0) == 0x80)
        from++; /* all before `at` is UTF-8: this lands on a character */
    char n[SHOWN_SIZE], near[SHOWN_SIZE];
    return fail_at(c, at, "theme '%s' is not a theme file: %s (in '%s%s')",
                   escaped(name, strlen(name), 63, n), what, from > c->ls ? "..." : "",
                   escaped(from, (size_t)(le - from), 48, near));
}

/* A theme file is UTF-8 text of short lines without control characters
 * (a tab, and CR before LF, excepted). Checked first and in one pass, so
 * that random bytes, an image or a megabyte on one line get one error about
 * what the file is, in time linear in its size, rather than a complaint
 * about whichever word the garbage happened to form. */
static int check_text(pctx *c, const char *name, const char *p, const char *end)
{
    c->line = 1;
    c->ls = p;
    for (size_t k; p < end; p += k) {
        utf8proc_int32_t cp;
        char what[64], b[SHOWN_SIZE];
        k = char_at(p, (size_t)(end - p), &cp);
        if (k && cp == '\n') {
            c->line++;
            c->ls = p + 1;
            continue;
        }
        if (p - c->ls >= MAX_LINE_BYTES) {
            snprintf(what, sizeof what, "a line longer than %d bytes", MAX_LINE_BYTES);
            return not_a_theme(c, name, p, end, what);
        }
        if (!k) {
            snprintf(what, sizeof what, "byte \\x%02X is not UTF-8 text", (unsigned char)*p);
            return not_a_theme(c, name, p, end, what);
        }
        if (!is_control(cp) || cp == '\t' || (cp == '\r' && (p + 1 == end || p[1] == '\n')))
            continue;
        snprintf(what, sizeof what, "%s %s", cp ? "control character" : "NUL byte",
                 escaped(p, k, k, b));
        return not_a_theme(c, name, p, end, what);
    }
    return 0;
}

static int parse_text(loader *ld, const char *path, const char *name, const char *text,
                      size_t len, px_theme *out)
{
    px_theme t;
    theme_default(&t);
    pctx c = {.ld = ld, .path = path, .t = &t};
    const char *p = text, *end = text + len;
    /* Some editors start a UTF-8 file with a byte order mark. */
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    if (check_text(&c, name, p, end))
        return -1;
    c.line = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
        c.line++;
        c.ls = p;
        if (parse_line(&c, p, le))
            return -1;
        p = nl ? nl + 1 : end;
    }
    snprintf(t.name, sizeof t.name, "%s", name);
    *out = t;
    return 0;
}

/* ---- listing ------------------------------------------------------------ */

/* Insert s into the sorted names[0..*n), keeping at most max. */
static void insert_sorted(char names[][64], size_t *n, size_t max, const char *s)
{
    size_t at = 0;
    while (at < *n && strcmp(names[at], s) < 0)
        at++;
    if (at >= max || (at < *n && !strcmp(names[at], s)))
        return;
    size_t last = *n < max ? *n : max - 1;
    memmove(names[at + 1], names[at], (last - at) * sizeof names[0]);
    snprintf(names[at], sizeof names[at], "%s", s);
    if (*n < max)
        (*n)++;
}

static void list_dir(const char *dir, char names[][64], size_t *n, size_t max)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len <= 6 || strcmp(e->d_name + len - 6, ".theme") || !name_ok(e->d_name, len - 6))
            continue;
        char path[4096], name[64];
        struct stat st;
        int k = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (k < 0 || (size_t)k >= sizeof path || stat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        snprintf(name, sizeof name, "%.*s", (int)(len - 6), e->d_name);
        insert_sorted(names, n, max, name);
    }
    closedir(d);
}

size_t theme_list(const char *const *dirs, size_t n_dirs, char names[][64], size_t max)
{
    size_t n = 0;
    for (size_t i = 0; max && i < n_dirs; i++)
        if (dirs[i] && dirs[i][0])
            list_dir(dirs[i], names, &n, max);
    return n;
}
