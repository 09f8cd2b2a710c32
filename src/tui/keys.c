#include <curses.h>

#include "parity/keys.h"

const px_keydef key_defs[PX_ACT_COUNT] = {
#define PX_KEY_DEF(name, keys, help) [PX_ACT_##name] = {keys, help},
    PX_KEY_TABLE(PX_KEY_DEF)
#undef PX_KEY_DEF
};

px_action key_action(int ch)
{
    switch (ch) {
    case 'j': case KEY_DOWN: return PX_ACT_DOWN;
    case 'k': case KEY_UP: return PX_ACT_UP;
    case 'g': case KEY_HOME: return PX_ACT_FIRST;
    case 'G': case KEY_END: return PX_ACT_LAST;
    case KEY_NPAGE: return PX_ACT_PAGE_DOWN;
    case KEY_PPAGE: return PX_ACT_PAGE_UP;
    case '\t': return PX_ACT_CANDIDATE;
    case '\n': case KEY_ENTER: case ' ': case KEY_RIGHT: return PX_ACT_DETAILS;
    case '/': return PX_ACT_SEARCH;
    case 'n': return PX_ACT_SEARCH_NEXT;
    case 'N': return PX_ACT_SEARCH_PREV;
    case 'f': return PX_ACT_FILTER;
    case 'a': return PX_ACT_ACCEPT;
    case 'x': return PX_ACT_DEFECT;
    case 'u': return PX_ACT_UNSUPPORTED;
    case 'p': return PX_ACT_NEEDS_RULE;
    case 'm': return PX_ACT_FLAG;
    case 'c': return PX_ACT_CLEAR;
    case 'e': return PX_ACT_NOTE;
    case 'z': return PX_ACT_UNDO;
    case 'r': return PX_ACT_RERUN;
    case 'R': return PX_ACT_RERUN_ALL;
    case 'w': return PX_ACT_WRITE;
    case 't': return PX_ACT_THEME;
    case '?': return PX_ACT_HELP;
    case 'q': return PX_ACT_QUIT;
    default: return PX_ACT_NONE;
    }
}
