/* scrab's native engine: what its source files share (one concept each, one extension,
 * solver_cli.engine._movegen_c):
 *
 *   lexicon.c  the GADDAG node array, checked once (Lexicon)
 *   layout.c   a rule set's board and scores, checked once (Layout)
 *   leaves.c   leave tables: indexing, values (Leaves), and the training estimates
 *   records.c  the recorder of found moves (Sink): every move, or the best `keep`, ranked
 *   movegen.c  Gordon's Gen/GoOn over the GADDAG, and the generate() entry point; for
 *              best-move searches, anchors bounded and walked best bound first
 *   endgame*.c the exact endgame search over movegen.c's generator (endgame()): its
 *              position, search and entry point, sharing endgame.h
 *   rollout.c  the simulation's play-outs: best replies played without Python (rollout()),
 *              on endgame.h's position
 *   wordprune.c the words the endgame's tiles could form on a board (possible_words()), for
 *              the small GADDAG its search runs on
 *   module.c   the module: its functions, types and constants
 *
 * Every entry point checks what it is given before any of this runs (see each file).
 */
#ifndef SCRAB_NATIVE_H
#define SCRAB_NATIVE_H

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
#define MAX_END_FACTOR 10   /* out_gain, out_loss: multiples of a rack's face value (rules.py's limit) */
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

static inline int lowest_bit(uint32_t v) { /* v != 0 */
#if defined(__GNUC__)
    return __builtin_ctz(v);
#else
    int b = 0;
    while (!(v & 1u)) {
        v >>= 1;
        b++;
    }
    return b;
#endif
}

/* Functions shared between the files are internal to the extension. */
#if defined(__GNUC__)
#define SCRAB_INTERNAL __attribute__((visibility("hidden")))
#else
#define SCRAB_INTERNAL
#endif

#define MAX_TILE_COUNT 1000 /* tiles of one letter in a bag (rules.py's limit) */

#define CHILD(g, state, mask, code) ((g)[(state) + 1 + popcount32((mask) & (((uint32_t)1 << (code)) - 1))])

/* lexicon.c */
typedef struct {
    PyObject_HEAD
    Py_buffer view;
    int has_view;
    const uint32_t *nodes;
    size_t len;
    uint32_t root;
    uint32_t dawg_root;
} LexiconObject;
SCRAB_INTERNAL extern PyTypeObject LexiconType;

/* layout.c */
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
    /* out_gain + out_loss: the multiple of a rack's face value that going out moves between
     * the players (the equity ranking's end-of-game adjustments) */
    int64_t out_factor;
} LayoutObject;
SCRAB_INTERNAL extern PyTypeObject LayoutType;

/* leaves.c */
typedef struct {
    PyObject_HEAD
    Py_buffer view; /* the table's array, held (pinned) for the object's life: no copy */
    int has_view;
    const int16_t *values;
    int32_t max_term; /* the largest value in thousandths, at least 0: no leave term of the table is above it */
} LeavesObject;
SCRAB_INTERNAL extern PyTypeObject LeavesType;
/* BINOM[n][k] for n < 40, k <= MAX_LEAVE + 1 */
SCRAB_INTERNAL extern int64_t BINOM[40][MAX_LEAVE + 2];
/* LEAVE_OFFSET[k]: index of the first leave of k tiles; LEAVE_OFFSET[MAX_LEAVE + 1]: the size */
SCRAB_INTERNAL extern int64_t LEAVE_OFFSET[MAX_LEAVE + 2];
SCRAB_INTERNAL void init_tables(void);
SCRAB_INTERNAL int64_t leave_index(const uint8_t *counts);
SCRAB_INTERNAL int32_t fallback_value(const int16_t *leaves, const uint8_t *counts);
SCRAB_INTERNAL PyObject *py_leave_index(PyObject *module, PyObject *arg);
SCRAB_INTERNAL PyObject *leave_sums(PyObject *module, PyObject *args);
SCRAB_INTERNAL PyObject *leave_table(PyObject *module, PyObject *args);
SCRAB_INTERNAL extern const char leave_index_doc[], leave_sums_doc[], leave_table_doc[];

/* records.c */
typedef struct {
    int keep; /* 0: every move; else the best `keep`, as a heap whose root is the worst kept */
    Record *items;
    size_t count, cap;
    size_t total; /* every move found */
    int failed;   /* out of memory, or over MAX_RECORDS */
} Sink;
SCRAB_INTERNAL int rank_cmp(const Record *a, const Record *b);
SCRAB_INTERNAL int rank_qsort(const void *a, const void *b);
/* Sorts keys[0..n) ascending, given in order of their low SORT_INDEX_BITS (the index of the
 * item each stands for, below); tmp holds n keys of scratch. */
SCRAB_INTERNAL void sort_keys(uint64_t *keys, uint64_t *tmp, size_t n);
/* The low SORT_INDEX_BITS of a packed sort key: the item's index (every key distinct). */
#define SORT_INDEX_BITS 24
#define SORT_INDEX_MASK (((uint64_t)1 << SORT_INDEX_BITS) - 1)
_Static_assert(MAX_RECORDS <= ((size_t)1 << SORT_INDEX_BITS), "a list's indices must fit a packed sort key");
_Static_assert(SORT_INDEX_BITS % 8 == 0, "sort_keys skips the index bytes whole");
SCRAB_INTERNAL void sink_add(Sink *s, const Record *r);

/* movegen.c */
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

/* One line's set-up (movegen.c's setup_line): kept by generate_best between its two passes,
 * and by the endgame for as long as the line stays as it was (Gen.line_cache). */
typedef struct {
    Square sq[MAX_SIDE];
    int64_t face[MAX_SIDE];
    uint8_t tiles[MAX_SIDE];
    uint8_t is_anchor[MAX_SIDE];
    int n;
    int has_anchor;
} SavedLine;

typedef struct {
    const uint32_t *g;
    uint32_t root, dawg_root;
    const LayoutObject *layout;
    const int16_t *leaves; /* hundredths of a point by leave_index; NULL: rank by score */
    int bag;               /* tiles in the bag: 0 switches to the end-of-game adjustments */
    int64_t opponent;      /* face value of the opponent's rack (for going out) */
    Sink *sink;
    /* best-move searches (rollout.c): with a full heap, a move whose score plus leave_cap
     * cannot beat the worst kept is counted, not valued (leave_cap bounds every leave term) */
    int capped;
    int64_t leave_cap;
    int mirror; /* also record each move mirrored in the diagonal (the empty symmetric board) */
    /* best-move searches that also set `shadow` (rollout.c): anchors are bounded first and
     * walked best bound first (movegen.c's generate_best); kept_cap[k] bounds the leave term of
     * every move that keeps k tiles */
    int shadow;
    SavedLine *saved; /* room for 2 * MAX_SIDE lines (else each line is set up again to be walked) */
    /* the endgame's: each line's set-up, rows [0 .. MAX_SIDE) then columns, kept while its
     * bit in cached[down] is set; the position clears the bits of the lines a play or an
     * unplay changes (NULL: no cache) */
    SavedLine *line_cache;
    uint32_t cached[2];
    int64_t kept_cap[MAX_RACK + 1];
    int rack_tiles;                /* set by generate_best: the rack's tiles */
    int64_t values_desc[MAX_RACK]; /* and their values, highest first */
    int letter_count;              /* the rack's letters (not blanks), */
    uint8_t letters_desc[RACK_CODES]; /* highest value first */
    /* the line being walked: set up in `own` or in a kept SavedLine (use_line in movegen.c) */
    int down, line, n;
    const uint8_t *tiles;
    const int64_t *face;
    const Square *sq;
    const uint8_t *is_anchor;
    uint8_t strip[MAX_SIDE]; /* the codes of the word being built, board tiles included */
    SavedLine own;
    int after_run;           /* the square after the anchor and the tiles that follow it */
    uint32_t turn_check;     /* its cross-check (0 past the edge) */
    /* the rack */
    uint8_t rack[RACK_CODES];
    uint32_t bits; /* letters 1..26 the rack holds */
} Gen;
SCRAB_INTERNAL void generate_all(Gen *G, const uint8_t *sq);
/* for the endgame, which keeps the anchors and cross-checks up to date as it plays: one
 * square's cross-check, trying only `letters` (the others come out not allowed) */
SCRAB_INTERNAL void cross_check_square(const Gen *G, const uint8_t *sq, int down, int i, uint32_t letters,
                                       uint32_t *mask, int64_t *score);
SCRAB_INTERNAL void generate_prepared(Gen *G, const uint8_t *sq, const uint8_t *anchor, const uint32_t *const masks[2],
                                      const int64_t *const scores[2]);
SCRAB_INTERNAL void generate_prepared_lines(Gen *G, const uint8_t *sq, const uint8_t *anchor, const uint32_t lines[2],
                                            const uint32_t *const masks[2], const int64_t *const scores[2]);
SCRAB_INTERNAL void other_moves(Gen *G, int most, int passes);
SCRAB_INTERNAL PyObject *generate(PyObject *module, PyObject *args, PyObject *kwds);
SCRAB_INTERNAL extern const char generate_doc[];

/* module.c: the argument checks the entry points share */
SCRAB_INTERNAL int valid_square(uint8_t code);
SCRAB_INTERNAL int int_arg(const char *who, PyObject *obj, const char *name, long long lo, long long hi,
                           long long *out);

/* endgame_py.c */
SCRAB_INTERNAL PyObject *endgame(PyObject *module, PyObject *args, PyObject *kwds);
SCRAB_INTERNAL extern const char endgame_doc[];

/* rollout.c */
SCRAB_INTERNAL PyObject *rollout(PyObject *module, PyObject *args);
SCRAB_INTERNAL extern const char rollout_doc[];

/* wordprune.c */
SCRAB_INTERNAL PyObject *possible_words(PyObject *module, PyObject *args);
SCRAB_INTERNAL extern const char possible_words_doc[];

#endif /* SCRAB_NATIVE_H */
