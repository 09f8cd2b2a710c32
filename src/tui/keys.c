/* What the binding table (parity/keys.h) generates: key_defs, the action
 * of a key, the names of keys, and the status line's hints. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "parity/decision.h"
#include "parity/keys.h"

#define PX_UNPAREN(...) __VA_ARGS__

#define PX_KEY_CODES(id, name, codes, ...) static const int codes_##id[] = {PX_UNPAREN codes};
PX_KEY_TABLE(PX_KEY_CODES)
#undef PX_KEY_CODES

/* hint is PX_HINT(...): four initializers. */
#define PX_KEY_DEF(id, name, codes, shown, help, flags, hint)                                                        \
    [PX_ACT_##id] = {#name, shown, help, codes_##id, sizeof codes_##id / sizeof *codes_##id, flags, hint},
const px_keydef key_defs[PX_ACT_COUNT] = {PX_KEY_TABLE(PX_KEY_DEF)};
#undef PX_KEY_DEF

static const struct {
    const char *name;
    int code;
    const char *terse;
} names[] = {
#define PX_KEY_NAME(name, code, terse) {name, code, terse},
    PX_KEY_NAMES(PX_KEY_NAME)
#undef PX_KEY_NAME
};

px_action key_action(int code)
{
    for (int a = 0; a < PX_ACT_COUNT; a++)
        for (size_t i = 0; i < key_defs[a].n_codes; i++)
            if (key_defs[a].codes[i] == code)
                return (px_action)a;
    return PX_ACT_NONE;
}

int key_code_of(const char *name)
{
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(name, names[i].name) || (names[i].terse && !strcmp(name, names[i].terse)))
            return names[i].code;
    return name[0] && !name[1] ? (unsigned char)name[0] : -1;
}

/* The name of a key code into buf ("Space", "j"); "" when it has none. */
static const char *key_name_of(int code, char *buf, size_t size)
{
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].code == code) {
            snprintf(buf, size, "%s", names[i].name);
            return buf;
        }
    if (code > ' ' && code < 0x7F)
        snprintf(buf, size, "%c", code);
    else if (size)
        buf[0] = '\0';
    return buf;
}

/* Appends word to buf, after sep when buf is not empty. */
static void append(char *buf, size_t size, const char *sep, const char *word)
{
    size_t n = strlen(buf);
    if (n < size)
        snprintf(buf + n, size - n, "%s%s", n ? sep : "", word);
}

const char *key_names(px_action a, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i < key_defs[a].n_codes; i++) {
        char name[32], earlier[32];
        key_name_of(key_defs[a].codes[i], name, sizeof name);
        int seen = 0; /* the keypad's Enter is Enter again */
        for (size_t e = 0; e < i; e++)
            seen |= !strcmp(key_name_of(key_defs[a].codes[e], earlier, sizeof earlier), name);
        if (name[0] && !seen)
            append(buf, size, " ", name);
    }
    return buf;
}

const char *key_first(px_action a, char *buf, size_t size)
{
    snprintf(buf, size, "%.*s", (int)strcspn(key_defs[a].keys, " "), key_defs[a].keys);
    return buf;
}

/* How a hint writes the key named name ("->" for Right). */
static const char *terse(const char *name)
{
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(name, names[i].name))
            return names[i].terse ? names[i].terse : name;
    return name;
}

/* The hints in their places, each the keys of the actions in one place and
 * their word; two keys are written "a/b", more "a b c". */
const char *key_hints(int demo, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int place = 1; place <= PX_ACT_COUNT; place++) {
        char keys[128] = "";
        const char *word = NULL;
        int n = 0;
        for (int a = 0; a < PX_ACT_COUNT; a++) {
            const px_keydef *d = &key_defs[a];
            if ((demo ? d->hint_demo : d->hint_review) != place)
                continue;
            char first[32], list[64];
            snprintf(list, sizeof list, "%s", d->hint_keys ? d->hint_keys : key_first((px_action)a, first, sizeof first));
            for (char *save = NULL, *k = strtok_r(list, " ", &save); k; k = strtok_r(NULL, " ", &save), n++)
                append(keys, sizeof keys, "\t", terse(k));
            word = word ? word : d->hint_word;
        }
        if (!n)
            continue;
        for (char *tab = strchr(keys, '\t'); tab; tab = strchr(tab, '\t'))
            *tab = n == 2 ? '/' : ' ';
        char hint[192];
        snprintf(hint, sizeof hint, "%s %s", keys, word ? word : "");
        append(buf, size, "  ", hint);
    }
    return buf;
}

size_t key_legend(px_legend *out, size_t max)
{
    static const px_legend badges[] = {
#define PX_BADGE_ROW(oc, badge, help) {badge, help},
        PX_BADGE_TABLE(PX_BADGE_ROW)
#undef PX_BADGE_ROW
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof badges / sizeof *badges; i++, n++)
        if (n < max)
            out[n] = badges[i];
    for (int d = 0; d < PX_DEC_COUNT; d++)
        if (strcmp(px_decision_table[d].symbol, " ")) { /* clear leaves no mark */
            if (n < max)
                out[n] = (px_legend){px_decision_table[d].symbol, px_decision_table[d].done};
            n++;
        }
    return n;
}
