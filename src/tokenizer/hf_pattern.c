/* Patterns of the tokenizer.json pipeline (Split, Replace): the library
 * compiles both kinds with Oniguruma (the onig crate's Regex::new: Ruby
 * syntax, UTF-8; a String pattern is the regex of its escaped text) and
 * iterates with the onig crate's find_iter. We translate the regex into
 * PCRE2's flavour (UTF, UCP) where the two differ, refuse what we cannot
 * translate faithfully, and replay find_iter's handling of empty matches.
 * Literal patterns are searched with memmem (the same matches: a literal
 * regex matches exactly its occurrences, leftmost first). */
#define _GNU_SOURCE
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/hf_pipe.h"
#include "parity/utf8.h"

/* Oniguruma's \s (Unicode White_Space); PCRE2's \s with UCP also takes
 * U+180E (through \h), which Oniguruma does not. */
#define WS_SET "\\t-\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
static int refuse(px_error *err, const char *src, const char *what)
{
    return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0,
                        "the regex %s uses %s, which parity cannot run as the library (Oniguruma) does", src, what);
}

static int put(hf_buf *o, const char *s, px_error *err) { return hf_buf_put(o, s, strlen(s), err); }

/* Oniguruma's general categories are the library's (Unicode 16);
 * Debian's PCRE2 10.42 has Unicode 14. Probing every code point with the
 * library (tests/tokenizer/hf_stages.js probe) found that each category
 * only gained code points since: \p{X} is run as [\p{X}<these>]. C and Cn
 * lost some (and Mn one, to Mc), so they are refused; so is every other
 * property (scripts, binary properties), whose data were not compared. */
static const struct { const char *name, *extra; } prop_delta[] = {
    {"L", "\\x{1C89}-\\x{1C8A}\\x{A7CB}-\\x{A7CD}\\x{A7DA}-\\x{A7DC}\\x{105C0}-\\x{105F3}\\x{10D4A}-\\x{10D65}\\x{10D6F}-\\x{10D85}\\x{10EC2}-\\x{10EC4}\\x{1123F}-\\x{11240}\\x{11380}-\\x{11389}\\x{1138B}\\x{1138E}\\x{11390}-\\x{113B5}\\x{113B7}\\x{113D1}\\x{113D3}\\x{11BC0}-\\x{11BE0}\\x{11F02}\\x{11F04}-\\x{11F10}\\x{11F12}-\\x{11F33}\\x{1342F}\\x{13441}-\\x{13446}\\x{13460}-\\x{143FA}\\x{16100}-\\x{1611D}\\x{16D40}-\\x{16D6C}\\x{18CFF}\\x{1B132}\\x{1B155}\\x{1DF25}-\\x{1DF2A}\\x{1E030}-\\x{1E06D}\\x{1E4D0}-\\x{1E4EB}\\x{1E5D0}-\\x{1E5ED}\\x{1E5F0}\\x{2B739}\\x{2EBF0}-\\x{2EE5D}\\x{31350}-\\x{323AF}"},
    {"N", "\\x{10D40}-\\x{10D49}\\x{116D0}-\\x{116E3}\\x{11BF0}-\\x{11BF9}\\x{11F50}-\\x{11F59}\\x{16130}-\\x{16139}\\x{16D70}-\\x{16D79}\\x{1CCF0}-\\x{1CCF9}\\x{1D2C0}-\\x{1D2D3}\\x{1E4F0}-\\x{1E4F9}\\x{1E5F1}-\\x{1E5FA}"},
    {"P", "\\x{1B4E}-\\x{1B4F}\\x{1B7F}\\x{10D6E}\\x{113D4}-\\x{113D5}\\x{113D7}-\\x{113D8}\\x{11B00}-\\x{11B09}\\x{11BE1}\\x{11F43}-\\x{11F4F}\\x{16D6D}-\\x{16D6F}\\x{1E5FF}"},
    {"S", "\\x{2427}-\\x{2429}\\x{2FFC}-\\x{2FFF}\\x{31E4}-\\x{31E5}\\x{31EF}\\x{10D8E}-\\x{10D8F}\\x{1CC00}-\\x{1CCEF}\\x{1CD00}-\\x{1CEB3}\\x{1F6DC}\\x{1F774}-\\x{1F776}\\x{1F77B}-\\x{1F77F}\\x{1F7D9}\\x{1F8B2}-\\x{1F8BB}\\x{1F8C0}-\\x{1F8C1}\\x{1FA75}-\\x{1FA77}\\x{1FA87}-\\x{1FA89}\\x{1FA8F}\\x{1FAAD}-\\x{1FAAF}\\x{1FABB}-\\x{1FABF}\\x{1FAC6}\\x{1FACE}-\\x{1FACF}\\x{1FADA}-\\x{1FADC}\\x{1FADF}\\x{1FAE8}-\\x{1FAE9}\\x{1FAF7}-\\x{1FAF8}\\x{1FBCB}-\\x{1FBEF}"},
    {"M", "\\x{897}\\x{CF3}\\x{ECE}\\x{10D69}-\\x{10D6D}\\x{10EFC}-\\x{10EFF}\\x{11241}\\x{113B8}-\\x{113C0}\\x{113C2}\\x{113C5}\\x{113C7}-\\x{113CA}\\x{113CC}-\\x{113D0}\\x{113D2}\\x{113E1}-\\x{113E2}\\x{11F00}-\\x{11F01}\\x{11F03}\\x{11F34}-\\x{11F3A}\\x{11F3E}-\\x{11F42}\\x{11F5A}\\x{13440}\\x{13447}-\\x{13455}\\x{1611E}-\\x{1612F}\\x{1E08F}\\x{1E4EC}-\\x{1E4EF}\\x{1E5EE}-\\x{1E5EF}"},
    {"Z", ""},
    {"Lu", "\\x{1C89}\\x{A7CB}-\\x{A7CC}\\x{A7DA}\\x{A7DC}\\x{10D50}-\\x{10D65}"},
    {"Ll", "\\x{1C8A}\\x{A7CD}\\x{A7DB}\\x{10D70}-\\x{10D85}\\x{1DF25}-\\x{1DF2A}"},
    {"Lt", ""},
    {"Lm", "\\x{10D4E}\\x{10D6F}\\x{16D40}-\\x{16D42}\\x{16D6B}-\\x{16D6C}\\x{1E030}-\\x{1E06D}\\x{1E4EB}"},
    {"Lo", "\\x{105C0}-\\x{105F3}\\x{10D4A}-\\x{10D4D}\\x{10D4F}\\x{10EC2}-\\x{10EC4}\\x{1123F}-\\x{11240}\\x{11380}-\\x{11389}\\x{1138B}\\x{1138E}\\x{11390}-\\x{113B5}\\x{113B7}\\x{113D1}\\x{113D3}\\x{11BC0}-\\x{11BE0}\\x{11F02}\\x{11F04}-\\x{11F10}\\x{11F12}-\\x{11F33}\\x{1342F}\\x{13441}-\\x{13446}\\x{13460}-\\x{143FA}\\x{16100}-\\x{1611D}\\x{16D43}-\\x{16D6A}\\x{18CFF}\\x{1B132}\\x{1B155}\\x{1E4D0}-\\x{1E4EA}\\x{1E5D0}-\\x{1E5ED}\\x{1E5F0}\\x{2B739}\\x{2EBF0}-\\x{2EE5D}\\x{31350}-\\x{323AF}"},
    {"Mc", "\\x{CF3}\\x{113B8}-\\x{113BA}\\x{113C2}\\x{113C5}\\x{113C7}-\\x{113CA}\\x{113CC}-\\x{113CD}\\x{113CF}\\x{1171E}\\x{11F03}\\x{11F34}-\\x{11F35}\\x{11F3E}-\\x{11F3F}\\x{11F41}\\x{1612A}-\\x{1612C}"},
    {"Me", ""},
    {"Nd", "\\x{10D40}-\\x{10D49}\\x{116D0}-\\x{116E3}\\x{11BF0}-\\x{11BF9}\\x{11F50}-\\x{11F59}\\x{16130}-\\x{16139}\\x{16D70}-\\x{16D79}\\x{1CCF0}-\\x{1CCF9}\\x{1E4F0}-\\x{1E4F9}\\x{1E5F1}-\\x{1E5FA}"},
    {"Nl", ""},
    {"No", "\\x{1D2C0}-\\x{1D2D3}"},
    {"Pc", ""},
    {"Pd", "\\x{10D6E}"},
    {"Ps", ""},
    {"Pe", ""},
    {"Pi", ""},
    {"Pf", ""},
    {"Po", "\\x{1B4E}-\\x{1B4F}\\x{1B7F}\\x{113D4}-\\x{113D5}\\x{113D7}-\\x{113D8}\\x{11B00}-\\x{11B09}\\x{11BE1}\\x{11F43}-\\x{11F4F}\\x{16D6D}-\\x{16D6F}\\x{1E5FF}"},
    {"Sm", "\\x{10D8E}-\\x{10D8F}"},
    {"Sc", ""},
    {"Sk", ""},
    {"So", "\\x{2427}-\\x{2429}\\x{2FFC}-\\x{2FFF}\\x{31E4}-\\x{31E5}\\x{31EF}\\x{1CC00}-\\x{1CCEF}\\x{1CD00}-\\x{1CEB3}\\x{1F6DC}\\x{1F774}-\\x{1F776}\\x{1F77B}-\\x{1F77F}\\x{1F7D9}\\x{1F8B2}-\\x{1F8BB}\\x{1F8C0}-\\x{1F8C1}\\x{1FA75}-\\x{1FA77}\\x{1FA87}-\\x{1FA89}\\x{1FA8F}\\x{1FAAD}-\\x{1FAAF}\\x{1FABB}-\\x{1FABF}\\x{1FAC6}\\x{1FACE}-\\x{1FACF}\\x{1FADA}-\\x{1FADC}\\x{1FADF}\\x{1FAE8}-\\x{1FAE9}\\x{1FAF7}-\\x{1FAF8}\\x{1FBCB}-\\x{1FBEF}"},
    {"Zs", ""},
    {"Zl", ""},
    {"Zp", ""},
    {"Cc", ""},
    {"Cf", "\\x{13439}-\\x{1343F}"},
    {"Co", ""},
};

static const char *prop_extra(const char *name, size_t n)
{
    for (size_t k = 0; k < sizeof prop_delta / sizeof *prop_delta; k++)
        if (strlen(prop_delta[k].name) == n && !memcmp(prop_delta[k].name, name, n))
            return prop_delta[k].extra;
    return NULL;
}

/* \p{X}, \P{X}, \p{^X} (name at s[0..n)): neg when negated. */
static int tr_prop(const char *name, size_t n, int neg, int in_class, hf_buf *o, const char *src, px_error *err)
{
    const char *extra = prop_extra(name, n);
    if (!extra)
        return refuse(err, src, "a Unicode property other than a general category (L, Lu, Nd, P, ...; C and Cn excepted)");
    if (neg && in_class)
        return refuse(err, src, "a negated property inside a class");
    char tmp[16];
    snprintf(tmp, sizeof tmp, "\\p{%.*s}", (int)n, name);
    if (in_class)
        return put(o, tmp, err) || put(o, extra, err);
    return put(o, neg ? "[^" : "[", err) || put(o, tmp, err) || put(o, extra, err) || put(o, "]", err);
}


static size_t hexlen(const char *s, size_t max)
{
    size_t k = 0;
    while (k < max && strchr("0123456789abcdefABCDEF", s[k]) && s[k])
        k++;
    return k;
}

/* One escape at s[i] == '\\' (in_class: inside [...]); *adv: bytes used. */
static int tr_escape(const char *s, size_t i, int in_class, hf_buf *o, size_t *adv, const char *src, px_error *err)
{
    char e = s[i + 1];
    char tmp[32];
    *adv = 2;
    switch (e) {
    case 's': return put(o, in_class ? WS_SET : "[" WS_SET "]", err);
    case 'S': return in_class ? refuse(err, src, "\\S inside a class") : put(o, "[^" WS_SET "]", err);
    case 'd': return tr_prop("Nd", 2, 0, in_class, o, src, err); /* Unicode: Nd */
    case 'D': return tr_prop("Nd", 2, 1, in_class, o, src, err);
    /* Oniguruma's \h is a hexadecimal digit (PCRE2's: horizontal space). */
    case 'h': return put(o, in_class ? "0-9a-fA-F" : "[0-9a-fA-F]", err);
    case 'H': return in_class ? refuse(err, src, "\\H inside a class") : put(o, "[^0-9a-fA-F]", err);
    case 'v': return put(o, "\\x{0B}", err); /* Oniguruma: vertical tab */
    case 'u': {
        if (hexlen(s + i + 2, 4) != 4)
            return refuse(err, src, "\\u without four hex digits");
        snprintf(tmp, sizeof tmp, "\\x{%.4s}", s + i + 2);
        *adv = 6;
        return put(o, tmp, err);
    }
    case 'p': case 'P': {
        const char *close = s[i + 2] == '{' ? strchr(s + i + 2, '}') : NULL;
        if (!close)
            return refuse(err, src, "\\p without {name}");
        *adv = (size_t)(close - (s + i)) + 1;
        const char *name = s + i + 3;
        int neg = e == 'P';
        if (*name == '^')
            name++, neg = !neg;
        return tr_prop(name, (size_t)(close - name), neg, in_class, o, src, err);
    }
    case 'x': case 'n': case 'r': case 't': case 'f': case 'e': case 'a':
    case 'A': case 'z': case 'Z': case 'G': case 'K':
        return hf_buf_put(o, s + i, 2, err);
    case '\0':
        return refuse(err, src, "a trailing backslash");
    default:
        if ((e >= '1' && e <= '9' && !in_class) || (unsigned char)e >= 0x80 ||
            !((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9')))
            return hf_buf_put(o, s + i, 2, err); /* an escaped symbol, or a back reference */
        snprintf(tmp, sizeof tmp, "the escape \\%c", e);
        return refuse(err, src, tmp);
    }
}

/* [:name:] inside a class: Oniguruma's POSIX brackets are Unicode
 * properties (alpha: Alphabetic, ...) other than PCRE2's, whose data were
 * not compared with the library's: refused. */
static int tr_posix(const char *src, px_error *err)
{
    return refuse(err, src, "a POSIX bracket ([:alpha:] ...)");
}

/* "(?" options: Oniguruma's (Ruby's) m is PCRE2's s (dot matches \n). */
static int tr_group(const char *s, size_t i, hf_buf *o, size_t *adv, const char *src, px_error *err)
{
    const char *g = s + i + 2;
    *adv = 2;
    if (strchr(":=!>#", *g) || (*g == '<' && (g[1] == '=' || g[1] == '!')) ||
        (*g == '<' && ((g[1] >= 'a' && g[1] <= 'z') || (g[1] >= 'A' && g[1] <= 'Z') || g[1] == '_')))
        return put(o, "(?", err);
    size_t k = 0;
    if (put(o, "(?", err))
        return -1;
    for (; g[k] == 'i' || g[k] == 'x' || g[k] == 'm' || g[k] == '-'; k++)
        if (hf_buf_put(o, g[k] == 'm' ? "s" : g + k, 1, err))
            return -1;
    if (k == 0 || (g[k] != ':' && g[k] != ')'))
        return refuse(err, src, "a group construct other than (?:, (?=, (?!, (?<=, (?<!, (?>, (?<name>, (?imx-imx)");
    *adv = 2 + k;
    return 0;
}

/* Oniguruma folds some characters to several (ß to "ss"), PCRE2 never: a
 * case-insensitive regex whose literal text could meet such a fold is
 * refused rather than run differently. */
static int fold_risk(const char *src)
{
    if (!strstr(src, "(?i") && !strstr(src, "(?-i"))
        return 0;
    static const char *const pairs[] = {"ss", "st", "ff", "fi", "fl"};
    for (const char *p = src; *p; p++) {
        if ((unsigned char)*p >= 0x80)
            return 1;
        for (size_t k = 0; k < 5; k++)
            if ((p[0] | 0x20) == pairs[k][0] && (p[1] | 0x20) == pairs[k][1])
                return 1;
    }
    return 0;
}

static int translate(const char *src, hf_buf *o, px_error *err)
{
    int in_class = 0;
    if (fold_risk(src))
        return refuse(err, src, "case-insensitive text that Oniguruma's multi-character case folding could match");
    for (size_t i = 0, adv; src[i]; i += adv) {
        const char *s = src;
        adv = 1;
        int rc = 0;
        if (s[i] == '\\')
            rc = tr_escape(s, i, in_class, o, &adv, src, err);
        else if (in_class && s[i] == '[' && s[i + 1] == ':')
            rc = tr_posix(src, err);
        else if (in_class && s[i] == '[')
            rc = refuse(err, src, "a nested character class");
        else if (in_class && s[i] == '&' && s[i + 1] == '&')
            rc = refuse(err, src, "a class intersection (&&)");
        else if (in_class && s[i] == ']')
            in_class = 0, rc = put(o, "]", err);
        else if (!in_class && s[i] == '[') {
            in_class = 1;
            adv = 1 + (s[i + 1] == '^');
            adv += s[i + adv] == ']'; /* a leading ] is a literal in both */
            rc = hf_buf_put(o, s + i, adv, err);
        } else if (!in_class && s[i] == '(' && s[i + 1] == '?')
            rc = tr_group(s, i, o, &adv, src, err);
        else if (!in_class && s[i] == '(' && s[i + 1] == '*')
            rc = refuse(err, src, "a (* verb");
        else if (!in_class && s[i] == '{' && s[i + 1] == ',')
            rc = put(o, "{0,", err), adv = 2; /* Oniguruma's {,n} is {0,n} */
        else if (!in_class && s[i] == '}' && s[i + 1] == '+')
            rc = refuse(err, src, "{n,m}+ (a repeat in Oniguruma, possessive in PCRE2)");
        else
            rc = hf_buf_put(o, s + i, 1, err);
        if (rc)
            return -1;
    }
    return in_class ? refuse(err, src, "an unclosed class") : 0;
}

int hf_pattern_compile(hf_pattern *p, px_error *err)
{
    p->code = NULL;
    if (!p->regex)
        return 0;
    if (strlen(p->text) != p->len)
        return refuse(err, "given", "a NUL character");
    hf_buf o = {0};
    if (translate(p->text, &o, err) || put(&o, "", err)) {
        hf_buf_free(&o);
        return -1;
    }
    pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
    if (!cc) {
        hf_buf_free(&o);
        return px_error_oom(err, NULL);
    }
    pcre2_set_newline(cc, PCRE2_NEWLINE_LF);
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)o.p, o.n, PCRE2_UTF | PCRE2_UCP | PCRE2_MULTILINE, &ec, &eo, cc);
    pcre2_compile_context_free(cc);
    hf_buf_free(&o);
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof msg);
        return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "the regex %s cannot be compiled: %s", p->text,
                            (const char *)msg);
    }
    (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); /* interpreted when JIT is unavailable */
    p->code = code;
    return 0;
}

void hf_pattern_free(hf_pattern *p)
{
    if (p->code)
        pcre2_code_free(p->code);
    p->code = NULL;
}

static int off_push(hf_offsets *o, size_t a, size_t b, px_error *err)
{
    if (o->n + 2 > o->cap) {
        size_t c = o->cap ? o->cap * 2 : 32;
        size_t *v = realloc(o->v, c * sizeof *v);
        if (!v)
            return px_error_oom(err, NULL);
        o->v = v, o->cap = c;
    }
    o->v[o->n++] = a, o->v[o->n++] = b;
    return 0;
}

static size_t char_len(const char *s, size_t i, size_t len)
{
    size_t k = 1;
    while (i + k < len && ((unsigned char)s[i + k] & 0xC0) == 0x80)
        k++;
    return k;
}

/* The onig crate's FindMatches::next as the library's build behaves
 * (probed: "a|(?=c)" on "cafe" gives the empty match before 'c'): search
 * from last_end; an empty match where the previous match ended is not
 * taken, the search moving one character on; any other match is. */
static int regex_find(const hf_pattern *p, const char *s, size_t len, hf_offsets *out, px_error *err)
{
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(p->code, NULL);
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    int rc = 0, have_last = 0;
    size_t last_match = 0;
    if (!md || !mc)
        rc = px_error_oom(err, NULL);
    if (mc) {
        pcre2_set_match_limit(mc, 10000000);
        pcre2_set_depth_limit(mc, 100000);
    }
    for (size_t last = 0; !rc && last <= len;) {
        int m = pcre2_match(p->code, (PCRE2_SPTR)s, len, last, PCRE2_NO_UTF_CHECK, md, mc);
        if (m == PCRE2_ERROR_JIT_STACKLIMIT) /* the interpreter, under the depth limit, goes further */
            m = pcre2_match(p->code, (PCRE2_SPTR)s, len, last, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, md, mc);
        if (m == PCRE2_ERROR_NOMATCH)
            break;
        if (m < 0) {
            rc = px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0,
                              m == PCRE2_ERROR_MATCHLIMIT || m == PCRE2_ERROR_DEPTHLIMIT
                                  ? "the Split regex %s exceeded its match limit on this text"
                                  : "the regex %s failed on this text",
                              p->text);
            break;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        size_t a = ov[0], b = ov[1];
        if (a == b && have_last && last == last_match) {
            if (last >= len)
                break;
            last += char_len(s, last, len);
            continue;
        }
        last = b, last_match = b, have_last = 1;
        rc = off_push(out, a, b, err);
    }
    pcre2_match_data_free(md);
    pcre2_match_context_free(mc);
    return rc;
}

/* A literal is the regex of its escaped text: the same iteration, with
 * memmem; the empty literal matches (emptily) at every character, as the
 * empty regex does. */
static int literal_find(const hf_pattern *p, const char *s, size_t len, hf_offsets *out, px_error *err)
{
    if (p->len == 0) {
        for (size_t i = 0; i <= len; i += i < len ? char_len(s, i, len) : 1)
            if (off_push(out, i, i, err))
                return -1;
        return 0;
    }
    for (size_t i = 0; i + p->len <= len;) {
        const char *f = memmem(s + i, len - i, p->text, p->len);
        if (!f)
            break;
        size_t a = (size_t)(f - s);
        if (off_push(out, a, a + p->len, err))
            return -1;
        i = a + p->len;
    }
    return 0;
}

int hf_pattern_find(const hf_pattern *p, const char *s, size_t len, hf_offsets *out, px_error *err)
{
    if (utf8_invalid_at(s, len) >= 0)
        return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "invalid UTF-8 in the text");
    if (!p->regex)
        return literal_find(p, s, len, out, err);
    if (!p->code)
        return px_error_set(err, PX_ERR_INTERNAL, NULL, 0, 0, "the regex %s was not compiled", p->text);
    return regex_find(p, s, len, out, err);
}
