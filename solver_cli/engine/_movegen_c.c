/* The native move generator: Gordon's Gen/GoOn over the flat GADDAG, the C twin of
 * _movegen_py.py, which stays the readable specification (both pass the same differential
 * tests against the brute-force reference).
 *
 * What it does per call, all in C and without the GIL: anchors, cross-check sets and
 * cross-scores for both directions, then for each anchor the GADDAG walk, scoring every move
 * incrementally, and hands each move found to a recorder (the "sink"): either a growing list
 * of every move, or a bounded heap that keeps only the best `keep` moves in rank order (best
 * move mode: self-play and `solve --top N` never build the full list).
 *
 * Moves come back packed, one fixed-size Record each (the layout is REC_FORMAT in movegen.py),
 * so Python objects are made only for the moves that are looked at.
 *
 * Nothing is trusted. A Lexicon checks its node array once, when it is made: every header's
 * arcs lie inside the array and every child offset is the start of an earlier state, so the
 * walk can never read outside it nor loop. A Layout checks the rule set's sizes and values; every call checks
 * the board's squares and the rack's counts. Scores are int64: with the limits checked here
 * (26 squares a side, letter values <= 1000, multipliers <= 4, racks <= 20 tiles) the largest
 * score is below 2^57, so no sum or product overflows.
 *
 * Blanks are tried for every letter the square allows (the Python twin walks each placement
 * once and lists the blank choices afterwards; both give the same moves).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FINAL_BIT ((uint32_t)1 << 27)
#define ARC_BITS (FINAL_BIT - 1)
#define SEP_BIT ((uint32_t)1)
#define ALL_LETTERS (ARC_BITS & ~SEP_BIT) /* bits 1..26 */
#define BLANK_BIT 32
#define LETTER_MASK 31
#define MAX_SIDE 26
#define MAX_SQUARES (MAX_SIDE * MAX_SIDE)
#define RACK_CODES 27 /* rack counts: index 0 the blanks, then A..Z */
#define MAX_RACK 20
#define MAX_VALUE 1000
#define MAX_MULT 4
#define MAX_BINGO 10000
#define MAX_LEAVE 6
#define MAX_RECORDS ((size_t)1 << 24) /* 768 MB of records: far above any real position */
/* |score difference| above which the leave term can no longer decide (it is an int32) */
#define DECISIVE ((int64_t)1 << 40)
#define NOT_OUT_PENALTY 10  /* points, with an empty bag, for a move that does not go out */
#define MAX_BAG 100000

enum { KIND_PLACE = 0, KIND_EXCHANGE = 1, KIND_PASS = 2 };

typedef struct {
    int64_t score;
    int32_t leave; /* the value of the tiles kept, in thousandths of a point */
    uint8_t kind;
    uint8_t down;
    uint8_t line;   /* the row (across) or column (down) */
    uint8_t start;  /* the main word's first square along the line */
    uint8_t length; /* of the main word, board tiles included */
    uint8_t blanks; /* blank tiles in the main word (the rank's tie-break) */
    uint8_t codes[MAX_SIDE];
    uint8_t pad[4];
} Record;

_Static_assert(sizeof(Record) == 48, "Record must match REC_FORMAT in movegen.py");

static inline unsigned popcount32(uint32_t v) {
#if defined(__GNUC__) && defined(__POPCNT__)
    return (unsigned)__builtin_popcount(v);
#else
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    return (unsigned)((((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
#endif
}

static inline int highest_bit(uint32_t v) { /* v != 0 */
#if defined(__GNUC__)
    return 31 - __builtin_clz(v);
#else
    int b = 0;
    while (v >>= 1) {
        b++;
    }
    return b;
#endif
}

/* ---------------------------------------------------------------------------------------
 * Lexicon: the node array, checked once and held (its buffer stays exported, so the array
 * cannot be resized or freed while a Lexicon uses it).
 */

typedef struct {
    PyObject_HEAD
    Py_buffer view;
    int has_view;
    const uint32_t *nodes;
    size_t len;
    uint32_t root;
    uint32_t dawg_root;
} LexiconObject;

/* The check below is a chain from one state's header to the next state's offset, through a
 * popcount. Where GCC can build clones chosen at load time (glibc's ifunc on x86-64), a
 * clone that uses the popcnt instruction runs on processors that have it: 3.0 instead of
 * 3.9 ms for kjxqz's 1.3 million entries, on every load of a cached lexicon. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
#define WITH_POPCNT_CLONE __attribute__((target_clones("popcnt", "default")))
#define CHECK_POPCOUNT(v) ((unsigned)__builtin_popcount(v))
#else
#define WITH_POPCNT_CLONE
#define CHECK_POPCOUNT(v) popcount32(v)
#endif

/* NULL when every read the generator can make from `nodes` stays inside it; else why not.
 * One pass, relying on the builder's order: a state is laid out after all its children, so
 * each child offset must be below its parent's and already known as the start of a state.
 * That also rules out cycles: every walk through the array goes strictly downwards. */
WITH_POPCNT_CLONE
static const char *check_nodes(const uint32_t *nodes, size_t len, uint64_t root, uint64_t dawg_root) {
    if (len == 0) {
        return "the node array is empty";
    }
    if (len > ((size_t)1 << 31)) {
        return "the node array is too long";
    }
    uint8_t *is_state = calloc((len + 7) / 8, 1);
    if (is_state == NULL) {
        return "out of memory";
    }
    const char *problem = NULL;
    size_t off = 0;
    while (off < len) {
        uint32_t header = nodes[off];
        if (header & ~(FINAL_BIT | ARC_BITS)) {
            problem = "a state header has bits above the final bit";
            break;
        }
        size_t arcs = CHECK_POPCOUNT(header & ARC_BITS);
        if (arcs > len - off - 1) {
            problem = "a state's arcs run past the end of the array";
            break;
        }
        for (size_t k = 1; k <= arcs; k++) {
            uint32_t child = nodes[off + k];
            if (child >= off || !(is_state[child >> 3] & (1u << (child & 7)))) {
                problem = "an arc points to no earlier state";
                break;
            }
        }
        if (problem != NULL) {
            break;
        }
        is_state[off >> 3] |= (uint8_t)(1u << (off & 7));
        off += 1 + arcs;
    }
    if (problem == NULL) {
        if (root >= len || !(is_state[root >> 3] & (1u << (root & 7))) || dawg_root >= len ||
            !(is_state[dawg_root >> 3] & (1u << (dawg_root & 7)))) {
            problem = "a root is not a state";
        }
    }
    free(is_state);
    return problem;
}

static int Lexicon_init(LexiconObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"nodes", "root", "dawg_root", NULL};
    PyObject *nodes;
    unsigned long long root, dawg_root;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OKK:Lexicon", kwlist, &nodes, &root, &dawg_root)) {
        return -1;
    }
    if (self->has_view) {
        PyErr_SetString(PyExc_TypeError, "a Lexicon is made once");
        return -1;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(nodes, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        return -1;
    }
    if (view.itemsize != 4 || view.format == NULL || (strcmp(view.format, "I") != 0 && strcmp(view.format, "=I") != 0 &&
                                                       strcmp(view.format, "<I") != 0 && strcmp(view.format, "L") != 0)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "nodes must be a buffer of uint32 (array('I'))");
        return -1;
    }
    if (view.itemsize != sizeof(uint32_t)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "nodes must hold 4-byte items");
        return -1;
    }
    size_t len = (size_t)view.len / 4;
    const char *problem = check_nodes((const uint32_t *)view.buf, len, root, dawg_root);
    if (problem != NULL) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "not a usable GADDAG: %s", problem);
        return -1;
    }
    self->view = view;
    self->has_view = 1;
    self->nodes = (const uint32_t *)view.buf;
    self->len = len;
    self->root = (uint32_t)root;
    self->dawg_root = (uint32_t)dawg_root;
    return 0;
}

static void Lexicon_dealloc(LexiconObject *self) {
    if (self->has_view) {
        PyBuffer_Release(&self->view);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject LexiconType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "solver_cli.engine._movegen_c.Lexicon",
    .tp_doc = PyDoc_STR("Lexicon(nodes, root, dawg_root): a GADDAG node array, checked once and held."),
    .tp_basicsize = sizeof(LexiconObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Lexicon_init,
    .tp_dealloc = (destructor)Lexicon_dealloc,
};

/* ---------------------------------------------------------------------------------------
 * Layout: a rule set's board and scoring, checked once.
 */

typedef struct {
    PyObject_HEAD
    int ready;
    int rows, cols;
    int rack_size;
    int64_t bingo;
    int64_t values[RACK_CODES];
    uint8_t lm[MAX_SQUARES];
    uint8_t wm[MAX_SQUARES];
    int centre;    /* square index of the centre */
    int symmetric; /* layout and centre unchanged by swapping rows and columns */
} LayoutObject;

static int read_multipliers(PyObject *obj, uint8_t *out, Py_ssize_t count, const char *what) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0) {
        return -1;
    }
    int ok = view.len == count;
    for (Py_ssize_t i = 0; ok && i < count; i++) {
        uint8_t m = ((const uint8_t *)view.buf)[i];
        ok = m >= 1 && m <= MAX_MULT;
        out[i] = m;
    }
    PyBuffer_Release(&view);
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s: %zd multipliers of 1..%d expected", what, count, MAX_MULT);
        return -1;
    }
    return 0;
}

static int Layout_init(LayoutObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"rows", "cols", "letter_mult", "word_mult", "values", "rack_size", "bingo", "centre", NULL};
    int rows, cols, rack_size, centre;
    long long bingo;
    PyObject *lm, *wm, *values;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiOOOiLi:Layout", kwlist, &rows, &cols, &lm, &wm, &values, &rack_size,
                                     &bingo, &centre)) {
        return -1;
    }
    if (rows < 2 || rows > MAX_SIDE || cols < 2 || cols > MAX_SIDE) {
        PyErr_Format(PyExc_ValueError, "board must be 2..%d squares a side", MAX_SIDE);
        return -1;
    }
    if (rack_size < 1 || rack_size > MAX_RACK || bingo < 0 || bingo > MAX_BINGO) {
        PyErr_SetString(PyExc_ValueError, "rack size or bingo bonus out of range");
        return -1;
    }
    if (centre < 0 || centre >= rows * cols) {
        PyErr_SetString(PyExc_ValueError, "centre off the board");
        return -1;
    }
    if (read_multipliers(lm, self->lm, rows * cols, "letter_mult") < 0 ||
        read_multipliers(wm, self->wm, rows * cols, "word_mult") < 0) {
        return -1;
    }
    PyObject *seq = PySequence_Fast(values, "values must be a sequence of 27 ints");
    if (seq == NULL) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(seq) != RACK_CODES) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "values must hold 27 ints (blank, then A..Z)");
        return -1;
    }
    for (int k = 0; k < RACK_CODES; k++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (v < 0 || v > MAX_VALUE) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "letter values must be 0..%d", MAX_VALUE);
            return -1;
        }
        self->values[k] = v;
    }
    Py_DECREF(seq);
    self->values[0] = 0; /* a blank scores nothing */
    self->rows = rows;
    self->cols = cols;
    self->rack_size = rack_size;
    self->bingo = bingo;
    self->centre = centre;
    int symmetric = rows == cols && centre / cols == centre % cols;
    for (int r = 0; symmetric && r < rows; r++) {
        for (int c = 0; c < r; c++) {
            if (self->lm[r * cols + c] != self->lm[c * cols + r] || self->wm[r * cols + c] != self->wm[c * cols + r]) {
                symmetric = 0;
                break;
            }
        }
    }
    self->symmetric = symmetric;
    self->ready = 1;
    return 0;
}

static PyTypeObject LayoutType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "solver_cli.engine._movegen_c.Layout",
    .tp_doc = PyDoc_STR("Layout(rows, cols, letter_mult, word_mult, values, rack_size, bingo, centre): a rule set, "
                        "checked once."),
    .tp_basicsize = sizeof(LayoutObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Layout_init,
};

/* ---------------------------------------------------------------------------------------
 * Leave values: a table indexed by the multiset of tiles kept (see leave_index).
 */

/* BINOM[n][k] for n < 40, k <= MAX_LEAVE + 1 */
static int64_t BINOM[40][MAX_LEAVE + 2];
/* LEAVE_OFFSET[k]: index of the first leave of k tiles; LEAVE_OFFSET[MAX_LEAVE + 1]: the size */
static int64_t LEAVE_OFFSET[MAX_LEAVE + 2];

static void init_tables(void) {
    for (int n = 0; n < 40; n++) {
        BINOM[n][0] = 1;
        for (int k = 1; k <= MAX_LEAVE + 1; k++) {
            BINOM[n][k] = n == 0 ? 0 : BINOM[n - 1][k - 1] + BINOM[n - 1][k];
        }
    }
    LEAVE_OFFSET[0] = 0;
    for (int k = 0; k <= MAX_LEAVE; k++) {
        /* multisets of k tiles over 27 codes: C(26 + k, k) */
        LEAVE_OFFSET[k + 1] = LEAVE_OFFSET[k] + BINOM[26 + k][k];
    }
}

/* The index of the multiset `counts` (27 counts, at most MAX_LEAVE tiles) in a leave table:
 * leaves of fewer tiles first, then the combinatorial number system on the sorted tiles
 * (tile i, 1-based, with code c adds C(c + i - 1, i)). -1 when the leave is too big. */
static int64_t leave_index(const uint8_t *counts) {
    int64_t rank = 0;
    int i = 0;
    for (int code = 0; code < RACK_CODES; code++) {
        for (int c = counts[code]; c > 0; c--) {
            i++;
            if (i > MAX_LEAVE) {
                return -1;
            }
            rank += BINOM[code + i - 1][i];
        }
    }
    return LEAVE_OFFSET[i] + rank;
}

/* ---------------------------------------------------------------------------------------
 * Sinks: what happens to each move found.
 */

typedef struct {
    int keep; /* 0: every move; else the best `keep`, as a heap whose root is the worst kept */
    Record *items;
    size_t count, cap;
    size_t total; /* every move found */
    int failed;   /* out of memory, or over MAX_RECORDS */
} Sink;

/* < 0 when a ranks before b: equity (score + leave) high first, then fewer blanks, then kind,
 * direction (across first), line, start, and the codes (as Python compares tuples). */
static int rank_cmp(const Record *a, const Record *b) {
    if (a->score != b->score || a->leave != b->leave) {
        int64_t ds = a->score - b->score;
        if (ds > DECISIVE) {
            return -1;
        }
        if (ds < -DECISIVE) {
            return 1;
        }
        int64_t e = ds * 1000 + ((int64_t)a->leave - (int64_t)b->leave);
        if (e != 0) {
            return e > 0 ? -1 : 1;
        }
    }
    if (a->blanks != b->blanks) {
        return a->blanks < b->blanks ? -1 : 1;
    }
    if (a->kind != b->kind) {
        return a->kind < b->kind ? -1 : 1;
    }
    if (a->down != b->down) {
        return a->down < b->down ? -1 : 1;
    }
    if (a->line != b->line) {
        return a->line < b->line ? -1 : 1;
    }
    if (a->start != b->start) {
        return a->start < b->start ? -1 : 1;
    }
    int n = a->length < b->length ? a->length : b->length;
    int c = memcmp(a->codes, b->codes, (size_t)n);
    if (c != 0) {
        return c;
    }
    return (int)a->length - (int)b->length;
}

static int rank_qsort(const void *a, const void *b) { return rank_cmp((const Record *)a, (const Record *)b); }

static void heap_sift_down(Record *h, size_t n, size_t i) {
    for (;;) {
        size_t worst = i, l = 2 * i + 1, r = l + 1;
        if (l < n && rank_cmp(&h[l], &h[worst]) > 0) {
            worst = l;
        }
        if (r < n && rank_cmp(&h[r], &h[worst]) > 0) {
            worst = r;
        }
        if (worst == i) {
            return;
        }
        Record t = h[i];
        h[i] = h[worst];
        h[worst] = t;
        i = worst;
    }
}

static void sink_add(Sink *s, const Record *r) {
    s->total++;
    if (s->keep == 0) {
        if (s->count == s->cap) {
            if (s->failed) {
                return;
            }
            size_t cap = s->cap ? s->cap * 2 : 1024;
            if (cap > MAX_RECORDS) {
                cap = MAX_RECORDS;
            }
            Record *items = s->count < MAX_RECORDS ? realloc(s->items, cap * sizeof(Record)) : NULL;
            if (items == NULL) {
                s->failed = 1;
                return;
            }
            s->items = items;
            s->cap = cap;
        }
        s->items[s->count++] = *r;
        return;
    }
    if (s->count < (size_t)s->keep) { /* sift up */
        if (s->count == s->cap) {
            /* The heap grows as moves come, up to `keep`: a --top far above the moves there
             * are costs no memory up front. */
            if (s->failed) {
                return;
            }
            size_t cap = s->cap * 2;
            if (cap > (size_t)s->keep) {
                cap = (size_t)s->keep;
            }
            Record *items = realloc(s->items, cap * sizeof(Record));
            if (items == NULL) {
                s->failed = 1;
                return;
            }
            s->items = items;
            s->cap = cap;
        }
        size_t i = s->count++;
        s->items[i] = *r;
        while (i > 0) {
            size_t parent = (i - 1) / 2;
            if (rank_cmp(&s->items[i], &s->items[parent]) <= 0) {
                break;
            }
            Record t = s->items[i];
            s->items[i] = s->items[parent];
            s->items[parent] = t;
            i = parent;
        }
    } else if (rank_cmp(r, &s->items[0]) < 0) {
        s->items[0] = *r;
        heap_sift_down(s->items, s->count, 0);
    }
}

/* The list of the last call that kept every move, for the next such call (see generate). */
static Record *spare_items = NULL;
static size_t spare_cap = 0;
#define MAX_SPARE ((size_t)1 << 20) /* records kept between calls: at most 48 MB */

/* ---------------------------------------------------------------------------------------
 * The generator.
 */

typedef struct {
    uint32_t check;      /* cross-check set of the square */
    int64_t lm, wm;      /* multipliers */
    int64_t base;        /* perpendicular tiles' sum times wm, 0 when no cross-word forms */
    int64_t xm;          /* wm when a cross-word forms, else 0 */
    uint32_t left_check; /* left part: cross-check of the square on the left, 0 if it may not go there */
    uint8_t tile_on_left;
    uint8_t single_elsewhere; /* down only: a lone tile here was already found across */
    uint8_t end;              /* right part: the first empty square after the tiles that follow */
    uint32_t next_check;      /* right part: the cross-check of `end`, 0 past the edge */
} Square;

typedef struct {
    const uint32_t *g;
    uint32_t root, dawg_root;
    const LayoutObject *layout;
    const int16_t *leaves; /* hundredths of a point by leave_index; NULL: rank by score */
    int bag;               /* tiles in the bag: 0 switches to the end-of-game adjustments */
    int64_t opponent;      /* face value of the opponent's rack (for going out) */
    Sink *sink;
    int mirror; /* also record each move mirrored in the diagonal (the empty symmetric board) */
    /* the line */
    int down, line, n;
    uint8_t tiles[MAX_SIDE];
    int64_t face[MAX_SIDE];
    Square sq[MAX_SIDE];
    uint8_t strip[MAX_SIDE]; /* the codes of the word being built, board tiles included */
    int after_run;           /* the square after the anchor and the tiles that follow it */
    uint32_t turn_check;     /* its cross-check (0 past the edge) */
    /* the rack */
    uint8_t rack[RACK_CODES];
    uint32_t bits; /* letters 1..26 the rack holds */
} Gen;

/* The mean value of the distinct MAX_LEAVE-tile sub-leaves of `counts` (a leave too long for
 * the table: a pass keeps the whole rack), rounded towards zero; leaves.py's fallback_value. */
static int32_t fallback_value(const int16_t *leaves, const uint8_t *counts) {
    uint8_t sub[RACK_CODES];
    int64_t total = 0, n = 0;
    int tiles = 0;
    for (int code = 0; code < RACK_CODES; code++) {
        tiles += counts[code];
    }
    if (tiles > MAX_LEAVE + 1) {
        return 0; /* no table speaks for racks longer than 7 (custom rules): no value */
    }
    /* odometer over sub[code] <= counts[code], keeping those of exactly MAX_LEAVE tiles */
    memset(sub, 0, sizeof sub);
    for (;;) {
        int size = 0;
        for (int code = 0; code < RACK_CODES; code++) {
            size += sub[code];
        }
        if (size == MAX_LEAVE) {
            total += 10 * (int64_t)leaves[leave_index(sub)];
            n++;
        }
        int code = 0;
        while (code < RACK_CODES && sub[code] == counts[code]) {
            sub[code] = 0;
            code++;
        }
        if (code == RACK_CODES) {
            break;
        }
        sub[code]++;
    }
    if (n == 0) {
        return 0;
    }
    return (int32_t)(total / n); /* C division rounds towards zero */
}

/* What keeping G->rack adds to a move's score, in thousandths of a point (Valuation.leave_term). */
static int32_t leave_term(const Gen *G) {
    if (G->leaves == NULL) {
        return 0;
    }
    if (G->bag > 0) {
        int64_t index = leave_index(G->rack);
        return index >= 0 ? 10 * (int32_t)G->leaves[index] : fallback_value(G->leaves, G->rack);
    }
    int64_t left = 0;
    int kept = 0;
    for (int code = 0; code < RACK_CODES; code++) {
        kept += G->rack[code];
        left += code ? G->rack[code] * G->layout->values[code] : 0;
    }
    if (kept == 0) {
        return (int32_t)(2 * G->opponent * 1000);
    }
    return (int32_t)(-(2 * left + NOT_OUT_PENALTY) * 1000);
}

static void record(Gen *G, int first, int end, int64_t score) {
    Record r;
    memset(&r, 0, sizeof r);
    r.score = score;
    r.kind = KIND_PLACE;
    r.down = (uint8_t)G->down;
    r.line = (uint8_t)G->line;
    r.start = (uint8_t)first;
    r.length = (uint8_t)(end - first);
    uint8_t blanks = 0;
    for (int p = first; p < end; p++) {
        uint8_t code = G->strip[p];
        r.codes[p - first] = code;
        blanks += (code & BLANK_BIT) != 0;
    }
    r.blanks = blanks;
    r.leave = leave_term(G);
    sink_add(G->sink, &r);
    if (G->mirror) {
        r.down = 1;
        sink_add(G->sink, &r);
    }
}

#define CHILD(g, state, mask, code) ((g)[(state) + 1 + popcount32((mask) & (((uint32_t)1 << (code)) - 1))])

static void gen_right(Gen *G, int pos, uint32_t state, int first, int64_t main, int64_t mult, int64_t cross,
                      int placed) {
    const uint32_t *g = G->g;
    const Square *s = &G->sq[pos];
    uint32_t mask = g[state];
    uint32_t allowed = mask & s->check;
    if (!allowed) {
        return;
    }
    mult *= s->wm;
    cross += s->base;
    placed++;
    int64_t bonus = placed == G->layout->rack_size ? G->layout->bingo : 0;
    int end = s->end;
    for (int as_blank = 0; as_blank < 2; as_blank++) {
        uint32_t letters;
        if (!as_blank) {
            letters = allowed & G->bits;
        } else {
            if (!G->rack[0]) {
                break;
            }
            letters = allowed;
            G->rack[0]--;
        }
        while (letters) {
            int code = highest_bit(letters);
            letters ^= (uint32_t)1 << code;
            uint32_t child = CHILD(g, state, mask, code);
            int64_t new_main = main;
            int dead = 0;
            /* GoOn: a run of tiles on the right must be taken; then the word may end or go on. */
            for (int p = pos + 1; p < end; p++) {
                int t = G->tiles[p] & LETTER_MASK;
                uint32_t t_mask = g[child];
                if (!(t_mask & ((uint32_t)1 << t))) {
                    dead = 1;
                    break;
                }
                child = CHILD(g, child, t_mask, t);
                new_main += G->face[p];
            }
            if (dead) {
                continue;
            }
            uint32_t c_mask = g[child];
            uint32_t further = c_mask & s->next_check;
            if (!(c_mask & FINAL_BIT) && !further) {
                continue;
            }
            int64_t value;
            if (as_blank) {
                value = 0;
                G->strip[pos] = (uint8_t)(code | BLANK_BIT);
            } else {
                value = G->layout->values[code] * s->lm;
                G->strip[pos] = (uint8_t)code;
                if (--G->rack[code] == 0) {
                    G->bits &= ~((uint32_t)1 << code);
                }
            }
            new_main += value;
            int64_t new_cross = cross + value * s->xm;
            if (c_mask & FINAL_BIT) {
                record(G, first, end, new_main * mult + new_cross + bonus);
            }
            if (further & (G->bits | (G->rack[0] ? ALL_LETTERS : 0))) {
                gen_right(G, end, child, first, new_main, mult, new_cross, placed);
            }
            if (!as_blank && G->rack[code]++ == 0) {
                G->bits |= (uint32_t)1 << code;
            }
        }
        if (as_blank) {
            G->rack[0]++;
        }
    }
}

static void gen_left(Gen *G, int pos, uint32_t state, int64_t main, int64_t mult, int64_t cross, int placed) {
    const uint32_t *g = G->g;
    const Square *s = &G->sq[pos];
    uint32_t mask = g[state];
    uint32_t allowed = mask & s->check;
    if (!allowed) {
        return;
    }
    mult *= s->wm;
    cross += s->base;
    placed++;
    int64_t bonus = placed == G->layout->rack_size ? G->layout->bingo : 0;
    int lone = placed == 1 && s->single_elsewhere; /* a lone tile is reported across only */
    for (int as_blank = 0; as_blank < 2; as_blank++) {
        uint32_t letters;
        if (!as_blank) {
            letters = allowed & G->bits;
        } else {
            if (!G->rack[0]) {
                break;
            }
            letters = allowed;
            G->rack[0]--;
        }
        while (letters) {
            int code = highest_bit(letters);
            letters ^= (uint32_t)1 << code;
            uint32_t child = CHILD(g, state, mask, code);
            int64_t new_main = main;
            /* GoOn: first take the run of board tiles directly on the left, if any. */
            int first = pos;
            uint32_t further = s->left_check;
            if (s->tile_on_left) {
                int dead = 0;
                while (first > 0 && G->tiles[first - 1]) {
                    first--;
                    int t = G->tiles[first] & LETTER_MASK;
                    uint32_t t_mask = g[child];
                    if (!(t_mask & ((uint32_t)1 << t))) {
                        dead = 1;
                        break;
                    }
                    child = CHILD(g, child, t_mask, t);
                    new_main += G->face[first];
                }
                if (dead) {
                    continue;
                }
                further = 0; /* the square left of the run is an earlier anchor */
            }
            uint32_t c_mask = g[child];
            int64_t value;
            if (as_blank) {
                value = 0;
                G->strip[pos] = (uint8_t)(code | BLANK_BIT);
            } else {
                value = G->layout->values[code] * s->lm;
                G->strip[pos] = (uint8_t)code;
                if (--G->rack[code] == 0) {
                    G->bits &= ~((uint32_t)1 << code);
                }
            }
            new_main += value;
            int64_t new_cross = cross + value * s->xm;
            if ((c_mask & FINAL_BIT) && !lone) {
                record(G, first, G->after_run, new_main * mult + new_cross + bonus);
            }
            uint32_t fits = G->bits | (G->rack[0] ? ALL_LETTERS : 0);
            /* The separator (always the first arc): turn right, after the anchor's run. */
            if ((c_mask & SEP_BIT) && G->turn_check) {
                uint32_t turned = g[child + 1];
                if (g[turned] & G->turn_check & fits) {
                    gen_right(G, G->after_run, turned, first, new_main, mult, new_cross, placed);
                }
            }
            if (further & c_mask & fits) {
                gen_left(G, first - 1, child, new_main, mult, new_cross, placed);
            }
            if (!as_blank && G->rack[code]++ == 0) {
                G->bits |= (uint32_t)1 << code;
            }
        }
        if (as_blank) {
            G->rack[0]++;
        }
    }
}

/* Per square, for moves running `down` (else across): the letters the perpendicular word
 * allows there and that word's face value without the new tile (-1: no perpendicular
 * neighbour, every letter allowed, no cross-word scored). */
static void cross_checks(const LayoutObject *L, const uint8_t *sq, const uint32_t *g, uint32_t root, uint32_t dawg_root,
                         int down, uint32_t *masks, int64_t *scores) {
    int rows = L->rows, cols = L->cols, n = rows * cols;
    int step = down ? 1 : cols, limit = down ? cols : rows;
    for (int i = 0; i < n; i++) {
        masks[i] = ALL_LETTERS;
        scores[i] = -1;
        if (sq[i]) {
            continue;
        }
        int pos = down ? i % cols : i / cols;
        int has_before = pos > 0 && sq[i - step];
        int has_after = pos + 1 < limit && sq[i + step];
        if (!has_before && !has_after) {
            continue;
        }
        uint8_t before[MAX_SIDE], after[MAX_SIDE]; /* letters, nearest first */
        int nb = 0, na = 0;
        int64_t sum = 0;
        for (int p = pos - 1, j = i - step; p >= 0 && sq[j]; p--, j -= step) {
            before[nb++] = sq[j] & LETTER_MASK;
            sum += (sq[j] & BLANK_BIT) ? 0 : L->values[sq[j]];
        }
        for (int p = pos + 1, j = i + step; p < limit && sq[j]; p++, j += step) {
            after[na++] = sq[j] & LETTER_MASK;
            sum += (sq[j] & BLANK_BIT) ? 0 : L->values[sq[j]];
        }
        scores[i] = sum;
        /* The word is rev(before) + L + after. Walk the longer side first: forwards in the
         * DAWG (rev(before), then L, then after), or backwards in the GADDAG, which accepts a
         * reversed word with no separator (rev(after), then L, then before). */
        uint32_t state;
        const uint8_t *tail;
        int ntail, ok = 1;
        if (na <= nb) {
            state = dawg_root;
            for (int k = nb - 1; k >= 0 && ok; k--) {
                uint32_t m = g[state];
                if (m & ((uint32_t)1 << before[k])) {
                    state = CHILD(g, state, m, before[k]);
                } else {
                    ok = 0;
                }
            }
            tail = after;
            ntail = na;
        } else {
            state = root;
            for (int k = na - 1; k >= 0 && ok; k--) {
                uint32_t m = g[state];
                if (m & ((uint32_t)1 << after[k])) {
                    state = CHILD(g, state, m, after[k]);
                } else {
                    ok = 0;
                }
            }
            tail = before;
            ntail = nb;
        }
        uint32_t allowed = 0;
        if (ok) {
            uint32_t mask = g[state];
            uint32_t letters = mask & ALL_LETTERS;
            while (letters) {
                int code = highest_bit(letters);
                letters ^= (uint32_t)1 << code;
                uint32_t end = CHILD(g, state, mask, code);
                int k = 0;
                for (; k < ntail; k++) {
                    uint32_t m = g[end];
                    if (!(m & ((uint32_t)1 << tail[k]))) {
                        break;
                    }
                    end = CHILD(g, end, m, tail[k]);
                }
                if (k == ntail && (g[end] & FINAL_BIT)) {
                    allowed |= (uint32_t)1 << code;
                }
            }
        }
        masks[i] = allowed;
    }
}

static void generate_direction(Gen *G, const uint8_t *sq, const uint8_t *anchor, const uint32_t *masks,
                               const int64_t *scores, int down) {
    const LayoutObject *L = G->layout;
    int rows = L->rows, cols = L->cols;
    int line_count = down ? cols : rows;
    int n = down ? rows : cols;
    G->down = down;
    G->n = n;
    for (int line = 0; line < line_count; line++) {
        int index[MAX_SIDE];
        int any_anchor = 0;
        for (int p = 0; p < n; p++) {
            index[p] = down ? p * cols + line : line * cols + p;
            any_anchor |= anchor[index[p]];
        }
        if (!any_anchor) {
            continue;
        }
        G->line = line;
        int run_end[MAX_SIDE + 1];
        run_end[n] = n;
        for (int p = n - 1; p >= 0; p--) {
            uint8_t t = sq[index[p]];
            G->tiles[p] = t;
            G->strip[p] = t;
            G->face[p] = (t && !(t & BLANK_BIT)) ? L->values[t] : 0;
            run_end[p] = t ? run_end[p + 1] : p;
        }
        for (int p = 0; p < n; p++) {
            int i = index[p];
            Square *s = &G->sq[p];
            int64_t wm = L->wm[i];
            s->check = masks[i];
            s->lm = L->lm[i];
            s->wm = wm;
            s->base = scores[i] >= 0 ? scores[i] * wm : 0;
            s->xm = scores[i] >= 0 ? wm : 0;
            /* The left part may not fill an earlier anchor: each move comes from its leftmost. */
            int left_open = p > 0 && !G->tiles[p - 1] && !anchor[index[p - 1]];
            s->left_check = left_open ? masks[index[p - 1]] : 0;
            s->tile_on_left = p > 0 && G->tiles[p - 1];
            s->single_elsewhere = down && scores[i] >= 0;
            int end = p + 1 < n ? run_end[p + 1] : n;
            s->end = (uint8_t)end;
            s->next_check = end < n ? masks[index[end]] : 0;
        }
        for (int p = 0; p < n; p++) {
            if (!anchor[index[p]]) {
                continue;
            }
            /* Read the anchor's run of right-hand tiles backwards, from its last tile. */
            int after_run = p + 1 < n ? run_end[p + 1] : n;
            G->after_run = after_run;
            G->turn_check = after_run < n ? masks[index[after_run]] : 0;
            uint32_t state = G->root;
            int64_t main = 0;
            int ok = 1;
            for (int q = after_run - 1; q > p; q--) {
                int t = G->tiles[q] & LETTER_MASK;
                uint32_t m = G->g[state];
                if (!(m & ((uint32_t)1 << t))) {
                    ok = 0;
                    break;
                }
                state = CHILD(G->g, state, m, t);
                main += G->face[q];
            }
            if (ok) {
                gen_left(G, p, state, main, 1, 0, 0);
            }
        }
    }
}

static void generate_all(Gen *G, const uint8_t *sq) {
    const LayoutObject *L = G->layout;
    int n = L->rows * L->cols;
    uint8_t anchor[MAX_SQUARES];
    uint32_t masks[MAX_SQUARES];
    int64_t scores[MAX_SQUARES];
    int empty = 1;
    for (int i = 0; i < n; i++) {
        if (sq[i]) {
            empty = 0;
            break;
        }
    }
    int rows = L->rows, cols = L->cols;
    for (int i = 0; i < n; i++) {
        int r = i / cols, c = i % cols;
        anchor[i] = !sq[i] && ((c > 0 && sq[i - 1]) || (c + 1 < cols && sq[i + 1]) || (r > 0 && sq[i - cols]) ||
                               (r + 1 < rows && sq[i + cols]));
    }
    if (empty) {
        anchor[L->centre] = 1;
    }
    if (empty && L->symmetric) {
        /* Every opening move down is an opening move across mirrored in the diagonal through
         * the centre, with the same score: find the across ones and record each twice. */
        G->mirror = 1;
        cross_checks(L, sq, G->g, G->root, G->dawg_root, 0, masks, scores);
        generate_direction(G, sq, anchor, masks, scores, 0);
        G->mirror = 0;
        return;
    }
    for (int down = 0; down < 2; down++) {
        cross_checks(L, sq, G->g, G->root, G->dawg_root, down, masks, scores);
        generate_direction(G, sq, anchor, masks, scores, down);
    }
}

/* Every distinct non-empty multiset of at most `most` tiles thrown back from the rack (kind
 * EXCHANGE, codes: the tiles thrown, ascending, 0 the blank), then the pass if `passes`. */
static void other_moves(Gen *G, int most, int passes) {
    uint8_t rack[RACK_CODES], thrown[RACK_CODES];
    memcpy(rack, G->rack, sizeof rack);
    memset(thrown, 0, sizeof thrown);
    Record r;
    for (int size = 0; most > 0;) { /* odometer over thrown[code] <= rack[code], size <= most */
        int code = 0;
        while (code < RACK_CODES && (thrown[code] == rack[code] || size == most)) {
            size -= thrown[code];
            thrown[code] = 0;
            code++;
        }
        if (code == RACK_CODES) {
            break;
        }
        thrown[code]++;
        size++;
        memset(&r, 0, sizeof r);
        r.kind = KIND_EXCHANGE;
        int n = 0;
        for (int c = 0; c < RACK_CODES; c++) {
            for (int k = 0; k < thrown[c]; k++) {
                r.codes[n++] = (uint8_t)c;
            }
            G->rack[c] = (uint8_t)(rack[c] - thrown[c]);
        }
        r.length = (uint8_t)n;
        r.blanks = thrown[0];
        r.leave = leave_term(G);
        sink_add(G->sink, &r);
    }
    memcpy(G->rack, rack, sizeof rack);
    if (passes) {
        memset(&r, 0, sizeof r);
        r.kind = KIND_PASS;
        r.leave = leave_term(G);
        sink_add(G->sink, &r);
    }
}

/* ---------------------------------------------------------------------------------------
 * Leaves: a leave table (int16 hundredths of a point per leave, indexed by leave_index), held
 * as the Python array's own buffer; a value counts ten thousandths of a point.
 */

typedef struct {
    PyObject_HEAD
    Py_buffer view; /* the table's array, held (pinned) for the object's life: no copy */
    int has_view;
    const int16_t *values;
} LeavesObject;

static int Leaves_init(LeavesObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"values", NULL};
    PyObject *obj;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:Leaves", kwlist, &obj)) {
        return -1;
    }
    if (self->has_view) {
        PyErr_SetString(PyExc_TypeError, "a Leaves table is made once");
        return -1;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        return -1;
    }
    size_t size = (size_t)LEAVE_OFFSET[MAX_LEAVE + 1];
    if (view.itemsize != 2 || view.format == NULL || strcmp(view.format, "h") != 0 ||
        (size_t)view.len != size * sizeof(int16_t)) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "a leave table holds %zu int16 values (array('h'))", size);
        return -1;
    }
    /* Any int16 is a valid value (at most 327.67 points either way): nothing to check. */
    self->view = view;
    self->has_view = 1;
    self->values = (const int16_t *)view.buf;
    return 0;
}

static void Leaves_dealloc(LeavesObject *self) {
    if (self->has_view) {
        PyBuffer_Release(&self->view);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject LeavesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "solver_cli.engine._movegen_c.Leaves",
    .tp_doc = PyDoc_STR("Leaves(values): a leave table (array('h') of hundredths of a point), held, not copied."),
    .tp_basicsize = sizeof(LeavesObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Leaves_init,
    .tp_dealloc = (destructor)Leaves_dealloc,
};

/* ---------------------------------------------------------------------------------------
 * The module's functions.
 */

static int valid_square(uint8_t code) {
    return code == 0 || (code >= 1 && code <= 26) || (code >= (BLANK_BIT | 1) && code <= (BLANK_BIT | 26));
}

PyDoc_STRVAR(generate_doc,
             "generate(lexicon, layout, squares, rack, keep=0, sort=False, leaves=None, bag=1, opponent=0,\n"
             "         exchange=0, passes=False) -> (total, records)\n\n"
             "Every legal move for the rack (27 counts as bytes, index 0 the blanks) on the board (one\n"
             "byte a square, row-major), then every exchange of at most `exchange` tiles and the pass\n"
             "(if `passes`). keep=0 returns every move (ranked if sort), keep=N the best N in rank\n"
             "order. With `leaves` moves rank by equity: score plus the leave's value, or with bag=0\n"
             "the end-of-game adjustments (`opponent`: the face value of the opponent's rack).\n"
             "records packs one 48-byte record a move; total counts every move found.");

static PyObject *generate(PyObject *module, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"lexicon", "layout", "squares", "rack",     "keep",   "sort",
                             "leaves",  "bag",    "opponent", "exchange", "passes", NULL};
    PyObject *lexicon_obj, *layout_obj, *leaves_obj = Py_None;
    Py_buffer squares, rack;
    Py_ssize_t keep = 0;
    int sort = 0, bag = 1, exchange = 0, passes = 0;
    long long opponent = 0;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!y*y*|npOiLip:generate", kwlist, &LexiconType, &lexicon_obj,
                                     &LayoutType, &layout_obj, &squares, &rack, &keep, &sort, &leaves_obj, &bag,
                                     &opponent, &exchange, &passes)) {
        return NULL;
    }
    LexiconObject *lexicon = (LexiconObject *)lexicon_obj;
    LayoutObject *layout = (LayoutObject *)layout_obj;
    const char *problem = NULL;
    if (!lexicon->has_view || !layout->ready) {
        problem = "the lexicon or layout was not initialised";
    } else if (squares.len != (Py_ssize_t)layout->rows * layout->cols) {
        problem = "squares: one byte a square of the layout's board expected";
    } else if (rack.len != RACK_CODES) {
        problem = "rack: 27 counts expected";
    } else if (keep < 0 || (size_t)keep > MAX_RECORDS) {
        problem = "keep out of range";
    } else if (leaves_obj != Py_None && (!PyObject_TypeCheck(leaves_obj, &LeavesType) ||
                                         ((LeavesObject *)leaves_obj)->values == NULL)) {
        problem = "leaves must be a Leaves table or None";
    } else if (bag < 0 || bag > MAX_BAG || opponent < 0 || opponent > (long long)MAX_RACK * MAX_VALUE) {
        problem = "bag or opponent out of range";
    } else if (exchange < 0 || exchange > MAX_RACK) {
        problem = "exchange out of range";
    }
    Gen *G = NULL;
    if (problem == NULL) {
        for (Py_ssize_t i = 0; i < squares.len; i++) {
            if (!valid_square(((const uint8_t *)squares.buf)[i])) {
                problem = "squares: a code that is not empty, A-Z or a blank A-Z";
                break;
            }
        }
        int tiles = 0;
        for (int k = 0; k < RACK_CODES; k++) {
            tiles += ((const uint8_t *)rack.buf)[k];
        }
        if (tiles > MAX_RACK) {
            problem = "rack: more tiles than any rack holds";
        }
    }
    if (problem == NULL) {
        G = calloc(1, sizeof(Gen));
        if (G == NULL) {
            PyBuffer_Release(&squares);
            PyBuffer_Release(&rack);
            return PyErr_NoMemory();
        }
    }
    if (problem != NULL) {
        PyBuffer_Release(&squares);
        PyBuffer_Release(&rack);
        PyErr_SetString(PyExc_ValueError, problem);
        return NULL;
    }
    Sink sink = {0};
    sink.keep = (int)keep;
    if (keep == 0) {
        /* Reuse the last call's list: a fresh megabyte costs more in page faults than the
         * search itself on a busy machine. Taken and given back with the GIL held. */
        sink.items = spare_items;
        sink.cap = spare_cap;
        spare_items = NULL;
        spare_cap = 0;
    } else {
        sink.cap = keep < 1024 ? (size_t)keep : 1024;
        sink.items = malloc(sink.cap * sizeof(Record));
        if (sink.items == NULL) {
            free(G);
            PyBuffer_Release(&squares);
            PyBuffer_Release(&rack);
            return PyErr_NoMemory();
        }
    }
    G->g = lexicon->nodes;
    G->root = lexicon->root;
    G->dawg_root = lexicon->dawg_root;
    G->layout = layout;
    G->leaves = leaves_obj == Py_None ? NULL : ((LeavesObject *)leaves_obj)->values;
    G->bag = bag;
    G->opponent = opponent;
    G->sink = &sink;
    memcpy(G->rack, rack.buf, RACK_CODES);
    for (int code = 1; code < RACK_CODES; code++) {
        if (G->rack[code]) {
            G->bits |= (uint32_t)1 << code;
        }
    }
    uint8_t sq[MAX_SQUARES];
    memcpy(sq, squares.buf, (size_t)squares.len);
    PyBuffer_Release(&squares);
    PyBuffer_Release(&rack);

    Py_BEGIN_ALLOW_THREADS
    generate_all(G, sq);
    other_moves(G, exchange, passes);
    if (!sink.failed && (keep > 0 || sort) && sink.count > 1) {
        qsort(sink.items, sink.count, sizeof(Record), rank_qsort);
    }
    Py_END_ALLOW_THREADS

    free(G);
    if (sink.failed) {
        free(sink.items);
        if (sink.count >= MAX_RECORDS) {
            PyErr_Format(PyExc_MemoryError, "more than %zu moves", MAX_RECORDS);
            return NULL;
        }
        return PyErr_NoMemory();
    }
    PyObject *records = PyBytes_FromStringAndSize((const char *)sink.items, (Py_ssize_t)(sink.count * sizeof(Record)));
    if (keep == 0 && spare_items == NULL && sink.cap <= MAX_SPARE) {
        spare_items = sink.items;
        spare_cap = sink.cap;
    } else {
        free(sink.items);
    }
    if (records == NULL) {
        return NULL;
    }
    return Py_BuildValue("(nN)", (Py_ssize_t)sink.total, records);
}

PyDoc_STRVAR(leave_index_doc, "leave_index(counts) -> int: the index of a leave (27 counts) in a leave table, or -1.");

static PyObject *py_leave_index(PyObject *module, PyObject *arg) {
    (void)module;
    Py_buffer counts;
    if (PyObject_GetBuffer(arg, &counts, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    if (counts.len != RACK_CODES) {
        PyBuffer_Release(&counts);
        PyErr_SetString(PyExc_ValueError, "27 counts expected");
        return NULL;
    }
    uint8_t c[RACK_CODES];
    memcpy(c, counts.buf, RACK_CODES);
    PyBuffer_Release(&counts);
    return PyLong_FromLongLong(leave_index(c));
}

/* ---------------------------------------------------------------------------------------
 * Training: from the mean equity of each full rack seen in self-play to the value of each
 * leave (MAGPIE's rack-mean estimate; games/leavegen.py has the Python twin and the rest).
 */

#define MAX_TILE_COUNT 1000 /* tiles of one letter in a bag (rules.py's limit) */

/* C(n, k) as a double, for n <= MAX_TILE_COUNT and k <= MAX_LEAVE + 1; 0 when k > n. */
static double binom_d(int n, int k) {
    if (k < 0 || n < 0 || k > n) {
        return 0.0;
    }
    double r = 1.0;
    for (int i = 1; i <= k; i++) {
        r = r * (double)(n - k + i) / (double)i;
    }
    return r;
}

/* The multiset of `size` tiles whose rank (leave_index without the size offset) is `rank`. */
static int rack_of_rank(int64_t rank, int size, uint8_t *counts) {
    memset(counts, 0, RACK_CODES);
    for (int i = size; i >= 1; i--) {
        int b = i - 1;
        while (b + 1 < 40 && BINOM[b + 1][i] <= rank) {
            b++;
        }
        if (BINOM[b][i] > rank || b - (i - 1) >= RACK_CODES) {
            return -1;
        }
        rank -= BINOM[b][i];
        counts[b - (i - 1)]++;
    }
    return rank == 0 ? 0 : -1;
}

PyDoc_STRVAR(leave_sums_doc,
             "leave_sums(ranks, sums, counts, tile_counts, rack_size) -> (num, den, support, overall)\n\n"
             "ranks (int32), sums and counts (int64): per full rack seen, its rank among the multisets\n"
             "of rack_size tiles, the sum of the equities (thousandths) of the moves made from it and\n"
             "how often it was seen. For every leave L of fewer tiles, over the racks R containing\n"
             "it, with w = the number of ways to draw R - L from a full bag without L: num[L] =\n"
             "sum of w * mean(R), den[L] = sum of w, support[L] = sum of counts(R) (doubles, as\n"
             "bytes, indexed by leave_index). overall = the mean of mean(R) weighted by the chance\n"
             "of drawing R from the full bag.");

/* The bag's 27 tile counts from a Python sequence into `tile_counts`. -1 with a TypeError set
 * when `obj` is not a sequence; else 0, with `*problem` set when a count is missing, not an
 * int or out of range (and left as it was otherwise). */
static int read_tile_counts(PyObject *obj, int *tile_counts, const char **problem) {
    PyObject *seq = PySequence_Fast(obj, "tile_counts must be a sequence of 27 ints");
    if (seq == NULL) {
        return -1;
    }
    const char *found = NULL;
    if (PySequence_Fast_GET_SIZE(seq) != RACK_CODES) {
        found = "tile_counts must hold 27 ints";
    }
    for (int c = 0; found == NULL && c < RACK_CODES; c++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, c));
        if (v < 0 || v > MAX_TILE_COUNT) {
            found = "a tile count out of range";
        }
        tile_counts[c] = (int)v;
    }
    Py_DECREF(seq);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        found = "tile_counts must be ints";
    }
    if (found != NULL) {
        *problem = found;
    }
    return 0;
}

static PyObject *leave_sums(PyObject *module, PyObject *args) {
    (void)module;
    Py_buffer ranks, sums, counts;
    PyObject *tiles_obj;
    int rack_size;
    if (!PyArg_ParseTuple(args, "y*y*y*Oi:leave_sums", &ranks, &sums, &counts, &tiles_obj, &rack_size)) {
        return NULL;
    }
    const char *problem = NULL;
    size_t n = (size_t)ranks.len / 4;
    int tile_counts[RACK_CODES];
    if (ranks.len % 4 || sums.len != (Py_ssize_t)(n * 8) || counts.len != (Py_ssize_t)(n * 8)) {
        problem = "ranks (int32), sums and counts (int64) must be as long as each other";
    } else if (rack_size < 1 || rack_size > MAX_LEAVE + 1) {
        problem = "rack_size must be 1..7";
    } else {
        if (read_tile_counts(tiles_obj, tile_counts, &problem) < 0) {
            PyBuffer_Release(&ranks);
            PyBuffer_Release(&sums);
            PyBuffer_Release(&counts);
            return NULL;
        }
    }
    size_t size = (size_t)LEAVE_OFFSET[MAX_LEAVE + 1];
    double *num = NULL, *den = NULL, *support = NULL;
    if (problem == NULL) {
        num = calloc(size, sizeof(double));
        den = calloc(size, sizeof(double));
        support = calloc(size, sizeof(double));
        if (num == NULL || den == NULL || support == NULL) {
            free(num);
            free(den);
            free(support);
            PyBuffer_Release(&ranks);
            PyBuffer_Release(&sums);
            PyBuffer_Release(&counts);
            return PyErr_NoMemory();
        }
        const int32_t *rk = (const int32_t *)ranks.buf;
        const int64_t *ct = (const int64_t *)counts.buf;
        for (size_t i = 0; problem == NULL && i < n; i++) {
            uint8_t r[RACK_CODES];
            if (rk[i] < 0 || rk[i] >= BINOM[26 + rack_size][rack_size] || ct[i] <= 0 ||
                rack_of_rank(rk[i], rack_size, r) < 0) {
                problem = "a rank out of range, or a rack seen no times";
            }
        }
    }
    double overall_num = 0.0, overall_den = 0.0;
    if (problem == NULL) {
        const int32_t *rk = (const int32_t *)ranks.buf;
        const int64_t *sm = (const int64_t *)sums.buf;
        const int64_t *ct = (const int64_t *)counts.buf;
        Py_BEGIN_ALLOW_THREADS
        for (size_t i = 0; i < n; i++) {
            uint8_t r[RACK_CODES], l[RACK_CODES];
            rack_of_rank(rk[i], rack_size, r);
            double mean = (double)sm[i] / (double)ct[i];
            double chance = 1.0;
            for (int c = 0; c < RACK_CODES; c++) {
                chance *= binom_d(tile_counts[c], r[c]);
            }
            overall_num += chance * mean;
            overall_den += chance;
            /* every sub-multiset L of R with fewer tiles than R (odometer over l[c] <= r[c]) */
            memset(l, 0, sizeof l);
            for (;;) {
                int tiles = 0;
                double w = 1.0;
                for (int c = 0; c < RACK_CODES; c++) {
                    tiles += l[c];
                    if (r[c]) {
                        w *= binom_d(tile_counts[c] - l[c], r[c] - l[c]);
                    }
                }
                if (tiles < rack_size && w > 0.0) {
                    int64_t index = leave_index(l);
                    num[index] += w * mean;
                    den[index] += w;
                    support[index] += (double)ct[i];
                }
                int c = 0;
                while (c < RACK_CODES && l[c] == r[c]) {
                    l[c] = 0;
                    c++;
                }
                if (c == RACK_CODES) {
                    break;
                }
                l[c]++;
            }
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&ranks);
    PyBuffer_Release(&sums);
    PyBuffer_Release(&counts);
    if (problem != NULL) {
        free(num);
        free(den);
        free(support);
        PyErr_SetString(PyExc_ValueError, problem);
        return NULL;
    }
    PyObject *result = Py_BuildValue("(y#y#y#d)", (const char *)num, (Py_ssize_t)(size * sizeof(double)),
                                     (const char *)den, (Py_ssize_t)(size * sizeof(double)), (const char *)support,
                                     (Py_ssize_t)(size * sizeof(double)),
                                     overall_den > 0.0 ? overall_num / overall_den : 0.0);
    free(num);
    free(den);
    free(support);
    return result;
}

PyDoc_STRVAR(leave_table_doc,
             "leave_table(num, den, support, overall, tile_counts, rack_size, smoothing) -> bytes\n\n"
             "The leave table (int16 hundredths of a point, as bytes) from leave_sums' results: for\n"
             "each leave the bag can hold, by increasing size, raw = num/den - overall (0 without\n"
             "data), prior = the mean over its distinct tiles t of v(L - t) + v(t) (0 for one\n"
             "tile), v = (support * raw + smoothing * prior) / (support + smoothing).");

static PyObject *leave_table(PyObject *module, PyObject *args) {
    (void)module;
    Py_buffer num_b, den_b, sup_b;
    double overall, smoothing;
    PyObject *tiles_obj;
    int rack_size;
    if (!PyArg_ParseTuple(args, "y*y*y*dOid:leave_table", &num_b, &den_b, &sup_b, &overall, &tiles_obj, &rack_size,
                          &smoothing)) {
        return NULL;
    }
    size_t size = (size_t)LEAVE_OFFSET[MAX_LEAVE + 1];
    const char *problem = NULL;
    int tile_counts[RACK_CODES];
    if ((size_t)num_b.len != size * sizeof(double) || (size_t)den_b.len != size * sizeof(double) ||
        (size_t)sup_b.len != size * sizeof(double)) {
        problem = "num, den and support must each hold one double a leave";
    } else if (rack_size < 1 || rack_size > MAX_LEAVE + 1 || !(smoothing >= 0.0)) {
        problem = "rack_size must be 1..7 and smoothing >= 0";
    } else {
        if (read_tile_counts(tiles_obj, tile_counts, &problem) < 0) {
            PyErr_Clear();
            problem = "tile_counts must be a sequence of 27 ints";
        }
    }
    double *v = NULL;
    int16_t *out = NULL;
    if (problem == NULL) {
        v = calloc(size, sizeof(double));
        out = calloc(size, sizeof(int16_t));
        if (v == NULL || out == NULL) {
            free(v);
            free(out);
            PyBuffer_Release(&num_b);
            PyBuffer_Release(&den_b);
            PyBuffer_Release(&sup_b);
            return PyErr_NoMemory();
        }
        const double *num = (const double *)num_b.buf, *den = (const double *)den_b.buf;
        const double *support = (const double *)sup_b.buf;
        Py_BEGIN_ALLOW_THREADS
        for (int tiles = 1; tiles < rack_size; tiles++) {
            for (int64_t index = LEAVE_OFFSET[tiles]; index < LEAVE_OFFSET[tiles + 1]; index++) {
                uint8_t l[RACK_CODES];
                rack_of_rank(index - LEAVE_OFFSET[tiles], tiles, l);
                int possible = 1;
                for (int c = 0; c < RACK_CODES; c++) {
                    possible &= l[c] <= tile_counts[c];
                }
                if (!possible) {
                    continue; /* not in this bag: stays 0 */
                }
                double raw = den[index] > 0.0 ? num[index] / den[index] - overall : 0.0;
                double prior = 0.0;
                if (tiles > 1) {
                    double parts = 0.0;
                    int n = 0;
                    for (int c = 0; c < RACK_CODES; c++) {
                        if (!l[c]) {
                            continue;
                        }
                        uint8_t one[RACK_CODES];
                        memset(one, 0, sizeof one);
                        one[c] = 1;
                        l[c]--;
                        parts += v[leave_index(l)] + v[leave_index(one)];
                        l[c]++;
                        n++;
                    }
                    prior = parts / n;
                }
                double weight = support[index] + smoothing;
                v[index] = weight > 0.0 ? (support[index] * raw + smoothing * prior) / weight : prior;
            }
        }
        for (size_t k = 0; k < size; k++) {
            double h = nearbyint(v[k] / 10.0); /* ties to even, as Python's round() */
            out[k] = (int16_t)(h > 32767.0 ? 32767 : h < -32767.0 ? -32767 : h);
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&num_b);
    PyBuffer_Release(&den_b);
    PyBuffer_Release(&sup_b);
    if (problem != NULL) {
        PyErr_SetString(PyExc_ValueError, problem);
        return NULL;
    }
    PyObject *result = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)(size * sizeof(int16_t)));
    free(v);
    free(out);
    return result;
}

static PyMethodDef methods[] = {
    {"generate", (PyCFunction)(void (*)(void))generate, METH_VARARGS | METH_KEYWORDS, generate_doc},
    {"leave_index", py_leave_index, METH_O, leave_index_doc},
    {"leave_sums", leave_sums, METH_VARARGS, leave_sums_doc},
    {"leave_table", leave_table, METH_VARARGS, leave_table_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "solver_cli.engine._movegen_c",
    .m_doc = "The native move generator (the C twin of solver_cli.engine._movegen_py).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__movegen_c(void) {
    init_tables();
    if (PyType_Ready(&LexiconType) < 0 || PyType_Ready(&LayoutType) < 0 || PyType_Ready(&LeavesType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "RECORD_SIZE", (long)sizeof(Record)) < 0 ||
        PyModule_AddIntConstant(m, "LEAVE_TABLE_SIZE", (long)LEAVE_OFFSET[MAX_LEAVE + 1]) < 0 ||
        PyModule_AddIntConstant(m, "MAX_LEAVE", MAX_LEAVE) < 0 ||
        /* the ranges the entry points check, which movegen.py checks first for both engines */
        PyModule_AddIntConstant(m, "MAX_SIDE", MAX_SIDE) < 0 || PyModule_AddIntConstant(m, "MAX_RACK", MAX_RACK) < 0 ||
        PyModule_AddIntConstant(m, "MAX_VALUE", MAX_VALUE) < 0 || PyModule_AddIntConstant(m, "MAX_MULT", MAX_MULT) < 0 ||
        PyModule_AddIntConstant(m, "MAX_BINGO", MAX_BINGO) < 0 || PyModule_AddIntConstant(m, "MAX_BAG", MAX_BAG) < 0 ||
        PyModule_AddIntConstant(m, "MAX_RECORDS", (long)MAX_RECORDS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_TILE_COUNT", MAX_TILE_COUNT) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&LexiconType);
    Py_INCREF(&LayoutType);
    Py_INCREF(&LeavesType);
    if (PyModule_AddObject(m, "Lexicon", (PyObject *)&LexiconType) < 0 ||
        PyModule_AddObject(m, "Layout", (PyObject *)&LayoutType) < 0 ||
        PyModule_AddObject(m, "Leaves", (PyObject *)&LeavesType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
