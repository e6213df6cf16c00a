/* Word pruning for the endgame (MAGPIE's word_prune): the words that the tiles of both racks
 * could ever form on this board, from which a small GADDAG is built for the whole search.
 *
 * Every word a move of the endgame forms, main word or cross-word, lies in one line (a row
 * or a column): a run of squares whose board letters are where they are now and whose other
 * squares hold tiles of the two racks (placed by this move or an earlier one), at least one
 * of them, with no board letter just before or after the run. So the words found by walking
 * the lexicon's DAWG along every line, from every square not just after a board letter,
 * matching the board's letters and spending the racks' tiles (a blank for a letter no tile
 * is left for) on the empty squares, are a superset of them: a search on their GADDAG finds
 * exactly the moves and scores a search on the whole lexicon finds, on a graph a few
 * thousand words big. The twin is lookahead/wordprune.py, the same walk in the same order.
 */
#include "scrab.h"

#define PRUNE_MAX_STEPS 20000000 /* arcs followed; past it the caller keeps the whole lexicon */
#define PRUNE_MAX_OUT ((size_t)64 << 20) /* bytes of the words found (each once) */

typedef struct {
    const uint32_t *nodes;
    uint8_t line[MAX_SIDE];
    int n;
    int counts[RACK_CODES];
    uint8_t word[MAX_SIDE];
    long long steps;
    char *out;
    size_t used, cap;
    /* the words in out, by a hash of their letters (open addressing; an offset into out plus
     * one, 0: free): a line's walk finds most words again and again, so each goes out once */
    uint32_t *seen;
    size_t seen_cap, seen_count;
    int failed; /* 1: over a bound, 2: out of memory */
} Prune;

static uint64_t word_hash(const uint8_t *word, int length) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (int k = 0; k < length; k++) {
        h = (h ^ word[k]) * 1099511628211ULL;
    }
    return h;
}

/* Whether out holds the word at offset `at`: its letters, then the newline. */
static int same_word(const Prune *P, size_t at, const uint8_t *word, int length) {
    for (int k = 0; k < length; k++) {
        if (P->out[at + (size_t)k] != (char)('A' - 1 + word[k])) {
            return 0;
        }
    }
    return P->out[at + (size_t)length] == '\n';
}

/* 1 when the word was emitted already, else 0 and it is noted as at offset `at` (-1: out
 * of memory). */
static int seen_before(Prune *P, int length, size_t at) {
    if (2 * (P->seen_count + 1) > P->seen_cap) {
        size_t cap = P->seen_cap ? 2 * P->seen_cap : 4096;
        uint32_t *grown = calloc(cap, sizeof *grown);
        if (grown == NULL) {
            return -1;
        }
        for (size_t k = 0; k < P->seen_cap; k++) { /* re-hash the words noted */
            uint32_t mark = P->seen[k];
            if (mark) {
                const char *w = P->out + mark - 1;
                uint8_t letters[MAX_SIDE];
                int n = 0;
                while (w[n] != '\n') {
                    letters[n] = (uint8_t)(w[n] - 'A' + 1);
                    n++;
                }
                size_t j = (size_t)word_hash(letters, n) & (cap - 1);
                while (grown[j]) {
                    j = (j + 1) & (cap - 1);
                }
                grown[j] = mark;
            }
        }
        free(P->seen);
        P->seen = grown;
        P->seen_cap = cap;
    }
    size_t j = (size_t)word_hash(P->word, length) & (P->seen_cap - 1);
    while (P->seen[j]) {
        if (same_word(P, P->seen[j] - 1, P->word, length)) {
            return 1;
        }
        j = (j + 1) & (P->seen_cap - 1);
    }
    P->seen[j] = (uint32_t)at + 1;
    P->seen_count++;
    return 0;
}

static void emit(Prune *P, int length) {
    int seen = seen_before(P, length, P->used);
    if (seen) {
        if (seen < 0) {
            P->failed = 2;
        }
        return;
    }
    if (P->used + (size_t)length + 1 > P->cap) {
        size_t cap = P->cap ? P->cap * 2 : 4096;
        if (cap > PRUNE_MAX_OUT) {
            P->failed = 1;
            return;
        }
        char *grown = realloc(P->out, cap);
        if (grown == NULL) {
            P->failed = 2;
            return;
        }
        P->out = grown;
        P->cap = cap;
    }
    for (int k = 0; k < length; k++) {
        P->out[P->used++] = (char)('A' - 1 + P->word[k]);
    }
    P->out[P->used++] = '\n';
}

/* The words of the line from square k on, `depth` letters read so far (ending on state). */
static void walk(Prune *P, int k, uint32_t state, int depth, int placed) {
    if (k == P->n || P->failed) {
        return;
    }
    const uint32_t *g = P->nodes;
    uint32_t mask = g[state];
    int fixed = P->line[k];
    uint32_t todo = fixed ? (mask & ((uint32_t)1 << fixed)) : (mask & ALL_LETTERS);
    while (todo) {
        int letter = lowest_bit(todo);
        todo &= todo - 1;
        int spent = -1;
        if (!fixed) {
            if (P->counts[letter] > 0) {
                spent = letter; /* a tile of the letter rather than a blank: never worse */
            } else if (P->counts[0] > 0) {
                spent = 0;
            } else {
                continue;
            }
        }
        if (++P->steps > PRUNE_MAX_STEPS) {
            P->failed = 1;
            return;
        }
        uint32_t child = CHILD(g, state, mask, letter);
        P->word[depth] = (uint8_t)letter;
        int now = placed || spent >= 0;
        if (spent >= 0) {
            P->counts[spent]--;
        }
        if (now && (g[child] & FINAL_BIT) && (k + 1 == P->n || P->line[k + 1] == 0)) {
            emit(P, depth + 1);
        }
        walk(P, k + 1, child, depth + 1, now);
        if (spent >= 0) {
            P->counts[spent]++;
        }
        if (P->failed) {
            return;
        }
    }
}

/* Whether no start on an earlier line has the same rest of its line as square i of line l
 * (on line l itself, only square i leaves a rest that long). */
static int first_start(uint8_t text[][MAX_SIDE], const int *length, int l, int i) {
    int rest = length[l] - i;
    for (int m = 0; m < l; m++) {
        int j = length[m] - rest;
        if (j < 0 || (j > 0 && text[m][j - 1])) {
            continue;
        }
        if (memcmp(text[m] + j, text[l] + i, (size_t)rest) == 0) {
            return 0;
        }
    }
    return 1;
}

const char possible_words_doc[] =
    "possible_words(lexicon, squares, rows, cols, tiles) -> bytes | None\n\n"
    "The words (A-Z, each followed by a newline, repeats possible) that the tiles (27 counts,\n"
    "index 0 the blanks) could form on the board, a superset of every word an endgame with\n"
    "them can form; None when the walk goes past its bounds.";

PyObject *possible_words(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *lexicon_obj, *rows_obj, *cols_obj;
    Py_buffer squares, tiles;
    if (!PyArg_ParseTuple(args, "O!y*OOy*:possible_words", &LexiconType, &lexicon_obj, &squares, &rows_obj, &cols_obj,
                          &tiles)) {
        return NULL;
    }
    PyObject *result = NULL;
    long long rows, cols;
    uint8_t board[MAX_SQUARES];
    Prune P;
    memset(&P, 0, sizeof P);
    const char *who = "possible_words";
    if (int_arg(who, rows_obj, "rows", 1, MAX_SIDE, &rows) < 0 || int_arg(who, cols_obj, "cols", 1, MAX_SIDE, &cols) < 0) {
        goto done;
    }
    if (squares.len != rows * cols || tiles.len != RACK_CODES) {
        PyErr_Format(PyExc_ValueError, "%s: squares must be rows*cols bytes and tiles %d counts", who, RACK_CODES);
        goto done;
    }
    memcpy(board, squares.buf, (size_t)squares.len); /* copied, then checked: no change after the check */
    for (Py_ssize_t i = 0; i < squares.len; i++) {
        if (!valid_square(board[i])) {
            PyErr_Format(PyExc_ValueError, "%s: square %zd holds code %d", who, i, board[i]);
            goto done;
        }
        board[i] &= LETTER_MASK;
    }
    for (int c = 0; c < RACK_CODES; c++) {
        P.counts[c] = ((const uint8_t *)tiles.buf)[c];
    }
    LexiconObject *lexicon = (LexiconObject *)lexicon_obj;
    P.nodes = lexicon->nodes;
    /* the lines: rows, then columns */
    int lines = (int)(rows + cols);
    uint8_t text[2 * MAX_SIDE][MAX_SIDE];
    int length[2 * MAX_SIDE];
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            text[r][c] = board[r * cols + c];
            text[rows + c][r] = board[r * cols + c];
        }
        length[r] = (int)cols;
    }
    for (int c = 0; c < cols; c++) {
        length[rows + c] = (int)rows;
    }
    Py_BEGIN_ALLOW_THREADS;
    for (int l = 0; l < lines && !P.failed; l++) {
        for (int i = 0; i < length[l] && !P.failed; i++) {
            if (i > 0 && text[l][i - 1]) {
                continue; /* a word cannot start just after a board letter */
            }
            if (!first_start(text, length, l, i)) {
                continue; /* the same rest of a line was walked already: the same words */
            }
            P.n = length[l];
            memcpy(P.line, text[l], (size_t)P.n);
            walk(&P, i, lexicon->dawg_root, 0, 0);
        }
    }
    Py_END_ALLOW_THREADS;
    if (P.failed == 2) {
        PyErr_NoMemory();
    } else if (P.failed) {
        result = Py_None;
        Py_INCREF(result);
    } else {
        result = PyBytes_FromStringAndSize(P.out ? P.out : "", (Py_ssize_t)P.used);
    }
done:
    free(P.out);
    free(P.seen);
    PyBuffer_Release(&squares);
    PyBuffer_Release(&tiles);
    return result;
}
