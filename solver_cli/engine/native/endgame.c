/* The exact endgame search (issue #21; the contract is docs/endgame.md): with the bag empty
 * both racks are known, and the value of a position is found by negamax with alpha-beta,
 * iterative deepening and a transposition table with Zobrist keys. The C twin of the Python
 * search in lookahead/endgame.py: for a proven search both give the same value, the same K
 * best first moves and the same principal variation.
 *
 * One square array is played on and unplayed (no board copies); each node's moves come from
 * movegen.c's generator (generate_all into a Sink that keeps every move), into a buffer per
 * ply that is reused from node to node. Going-out placements are scored without playing them.
 *
 * Determinism: inside the tree moves are ordered for speed (the best going-out placement,
 * the table's move, then the rest by score; the other going-out placements are skipped, as
 * they are worth less than the first), and only values matter there. At the root moves are
 * searched in the static order (going-out placements, the others, each in rank order, then the
 * pass), each with alpha = the K-th best exact value so far, so the K best are exact and ties
 * go to the earlier move. The principal variation is then made of the first move in static
 * order that keeps each position's exact value (null-window searches with the table warm).
 *
 * The search runs without the GIL. About every 0.1 s it takes it back to run the signal
 * handlers (Ctrl-C stops it with what it has) and, about every 0.2 s, the progress callback.
 *
 * Values: every score is below 2^57 (see movegen.c) and a side makes at most MAX_RACK scoring
 * moves, so |value| < 2^62 - 2^57 and the window bounds +-INF (INT64_MAX / 2) lie beyond any
 * real value; windows are clamped to them, so no sum of a score and a bound overflows.
 */
#include "scrab.h"

#include <time.h>

#define INF ((int64_t)INT64_MAX / 2)
#define MAX_DEPTH 1024  /* plies of recursion at most (a C stack of well under a megabyte) */
#define MAX_LIMIT 255   /* scoreless turns that end a game */
#define MAX_GAIN 10     /* out_gain, out_loss, stuck_loss */
#define MAX_PLIES 64    /* the plies argument (0: no limit) */
#define MAX_TOP 1000    /* first moves listed */
#define MAX_SECONDS 86400.0
#define MAX_TT_MB 65536
#define NO_MOVE UINT32_MAX
#define GIL_EVERY 0.1      /* seconds between two looks at the signals */
#define PROGRESS_EVERY 0.2 /* seconds between two progress calls */

enum { BOUND_LOWER = 1, BOUND_UPPER = 2, BOUND_EXACT = 3, BOUND_MASK = 3, HORIZON = 4 };
enum { PROVEN = 0, CUT_PLIES = 1, CUT_TIME = 2, INTERRUPTED = 3 };
enum { GOING = 0, STOP_TIME, STOP_INTERRUPT, STOP_ERROR };

/* ---------------------------------------------------------------------------------------
 * Zobrist keys: a square's code, each rack's count of each tile (as the side to move or the
 * side waiting) and the scoreless turns. Fixed numbers, made once.
 */
static uint64_t Z_SQUARE[MAX_SQUARES][64];
static uint64_t Z_RACK[2][RACK_CODES][MAX_RACK + 1]; /* [0] the side to move, [1] the other */
static uint64_t Z_SCORELESS[MAX_LIMIT + 1];
static int zobrist_ready = 0;

static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void init_zobrist(void) { /* with the GIL held */
    if (zobrist_ready) {
        return;
    }
    uint64_t state = 0x5C7AB0E6D6A3E21Dull;
    for (int i = 0; i < MAX_SQUARES; i++) {
        for (int c = 0; c < 64; c++) {
            Z_SQUARE[i][c] = splitmix64(&state);
        }
    }
    for (int role = 0; role < 2; role++) {
        for (int c = 0; c < RACK_CODES; c++) {
            for (int n = 0; n <= MAX_RACK; n++) {
                Z_RACK[role][c][n] = splitmix64(&state);
            }
        }
    }
    for (int s = 0; s <= MAX_LIMIT; s++) {
        Z_SCORELESS[s] = splitmix64(&state);
    }
    zobrist_ready = 1;
}

/* ---------------------------------------------------------------------------------------
 * The transposition table: buckets of two entries, one kept by depth, one always replaced.
 * An entry holds a bound on the position's value, the remaining depth it was searched with,
 * whether its subtree reached a depth limit anywhere (HORIZON: else it is exact at any
 * depth), and the best move found (its index in the position's static order).
 */
typedef struct {
    uint64_t key;
    int64_t value;
    uint32_t move;
    uint16_t depth;
    uint8_t flags; /* 0: empty */
    uint8_t pad;
} Entry;

typedef struct {
    Entry deep, recent;
} Bucket;

/* ---------------------------------------------------------------------------------------
 * The search's state.
 */
typedef struct {
    Record *moves; /* this ply's moves in static order (pad[1]: the move goes out) */
    size_t count, cap;
    uint32_t outs;         /* the going-out placements, at the front */
    int placed[MAX_SIDE];  /* the squares the move being tried filled */
    int nplaced;
    size_t undo_mark; /* the undo log's length before the move */
} Ply;

/* What a move changed in the anchors and cross-checks, to be put back when it is unplayed:
 * a tile changes them only at its own square and at the two ends of the perpendicular runs
 * through it, in each direction, and the anchor flags of its square and its neighbours. */
enum { UNDO_ACROSS = 0, UNDO_DOWN = 1, UNDO_ANCHOR = 2 };
typedef struct {
    int64_t score;
    uint32_t mask;
    uint16_t index;
    uint8_t what;
} Undo;
/* Tiles on the board at once beyond the position's: the two racks' at most. */
#define UNDO_PER_TILE (2 * 3 + 5)
#define MAX_UNDO (2 * MAX_RACK * UNDO_PER_TILE)

typedef struct {
    Gen *gen;
    const LayoutObject *layout;
    uint8_t sq[MAX_SQUARES];
    uint8_t anchor[MAX_SQUARES];
    uint32_t masks[2][MAX_SQUARES]; /* cross-checks for moves across [0] and down [1] */
    int64_t scores[2][MAX_SQUARES];
    Undo undo[MAX_UNDO];
    size_t undo_count;
    uint8_t rack[2][RACK_CODES];
    int tiles[2];
    int64_t face[2];
    uint64_t board_key, rack_key[2][2]; /* rack_key[player][role] */
    int me;    /* the player to move: 0 the root's mover, 1 the opponent */
    int s;     /* scoreless turns in a row so far */
    int limit; /* scoreless turns that end the game */
    int64_t out_bonus, stuck_loss;
    Bucket *table;
    size_t buckets;
    Ply *ply; /* MAX_DEPTH + 2 of them */
    Sink best_sink;
    Record best_item;
    uint64_t nodes;
    /* control */
    int stop;
    int fail_memory;
    double started, deadline, last_gil, last_progress;
    PyThreadState *thread;
    PyObject *progress;
    int depth_now;       /* the iteration under way */
    int have_best;       /* best_record/best_value hold the best root move so far */
    int64_t best_value;
    Record best_record;
} Search;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int64_t clamp(int64_t v) { return v > INF ? INF : v < -INF ? -INF : v; }

static uint64_t position_key(const Search *S) {
    return S->board_key ^ S->rack_key[S->me][0] ^ S->rack_key[S->me ^ 1][1] ^ Z_SCORELESS[S->s];
}

static void rack_take(Search *S, int player, int code, int64_t value) {
    uint8_t n = S->rack[player][code];
    S->rack_key[player][0] ^= Z_RACK[0][code][n] ^ Z_RACK[0][code][n - 1];
    S->rack_key[player][1] ^= Z_RACK[1][code][n] ^ Z_RACK[1][code][n - 1];
    S->rack[player][code] = (uint8_t)(n - 1);
    S->tiles[player]--;
    S->face[player] -= value;
}

static void rack_give(Search *S, int player, int code, int64_t value) {
    uint8_t n = S->rack[player][code];
    S->rack_key[player][0] ^= Z_RACK[0][code][n] ^ Z_RACK[0][code][n + 1];
    S->rack_key[player][1] ^= Z_RACK[1][code][n] ^ Z_RACK[1][code][n + 1];
    S->rack[player][code] = (uint8_t)(n + 1);
    S->tiles[player]++;
    S->face[player] += value;
}

static int square_of(const Search *S, const Record *r, int k) {
    int cols = S->layout->cols;
    return r->down ? (r->start + k) * cols + r->line : r->line * cols + r->start + k;
}

static void log_cross(Search *S, int down, int i) {
    Undo *u = &S->undo[S->undo_count++];
    u->what = (uint8_t)down;
    u->index = (uint16_t)i;
    u->mask = S->masks[down][i];
    u->score = S->scores[down][i];
}

static void set_anchor(Search *S, int i, uint8_t value) {
    if (S->anchor[i] != value) {
        Undo *u = &S->undo[S->undo_count++];
        u->what = UNDO_ANCHOR;
        u->index = (uint16_t)i;
        u->mask = S->anchor[i];
        S->anchor[i] = value;
    }
}

/* After tiles were put on `placed`: the anchors and cross-checks they change, logged. */
static void refresh_around(Search *S, const int *placed, int n) {
    const LayoutObject *L = S->layout;
    int rows = L->rows, cols = L->cols;
    for (int k = 0; k < n; k++) {
        int i = placed[k], r = i / cols, c = i % cols;
        for (int down = 0; down < 2; down++) {
            /* moves across see the column's word through a square; moves down the row's */
            int step = down ? 1 : cols, pos = down ? c : r, limit = down ? cols : rows;
            log_cross(S, down, i);
            S->masks[down][i] = ALL_LETTERS;
            S->scores[down][i] = -1;
            int p = pos - 1, j = i - step;
            while (p >= 0 && S->sq[j]) {
                p--, j -= step;
            }
            if (p >= 0) {
                log_cross(S, down, j);
                cross_check_square(S->gen, S->sq, down, j, &S->masks[down][j], &S->scores[down][j]);
            }
            p = pos + 1, j = i + step;
            while (p < limit && S->sq[j]) {
                p++, j += step;
            }
            if (p < limit) {
                log_cross(S, down, j);
                cross_check_square(S->gen, S->sq, down, j, &S->masks[down][j], &S->scores[down][j]);
            }
        }
        set_anchor(S, i, 0);
        if (c > 0 && !S->sq[i - 1]) {
            set_anchor(S, i - 1, 1);
        }
        if (c + 1 < cols && !S->sq[i + 1]) {
            set_anchor(S, i + 1, 1);
        }
        if (r > 0 && !S->sq[i - cols]) {
            set_anchor(S, i - cols, 1);
        }
        if (r + 1 < rows && !S->sq[i + cols]) {
            set_anchor(S, i + cols, 1);
        }
    }
}

static void undo_to(Search *S, size_t mark) {
    while (S->undo_count > mark) {
        const Undo *u = &S->undo[--S->undo_count];
        if (u->what == UNDO_ANCHOR) {
            S->anchor[u->index] = (uint8_t)u->mask;
        } else {
            S->masks[u->what][u->index] = u->mask;
            S->scores[u->what][u->index] = u->score;
        }
    }
}

/* Every anchor and cross-check from scratch (as generate_all finds them). */
static void refresh_all(Search *S) {
    const LayoutObject *L = S->layout;
    int rows = L->rows, cols = L->cols, n = rows * cols, empty = 1;
    for (int i = 0; i < n; i++) {
        int r = i / cols, c = i % cols;
        empty &= !S->sq[i];
        S->anchor[i] = !S->sq[i] && ((c > 0 && S->sq[i - 1]) || (c + 1 < cols && S->sq[i + 1]) ||
                                     (r > 0 && S->sq[i - cols]) || (r + 1 < rows && S->sq[i + cols]));
        for (int down = 0; down < 2; down++) {
            cross_check_square(S->gen, S->sq, down, i, &S->masks[down][i], &S->scores[down][i]);
        }
    }
    if (empty) {
        S->anchor[L->centre] = 1;
    }
    S->undo_count = 0;
}

/* Put the move's new tiles on the board, from the mover's rack (the squares go to *P). */
static void play_tiles(Search *S, const Record *r, Ply *P) {
    P->nplaced = 0;
    P->undo_mark = S->undo_count;
    for (int k = 0; k < r->length; k++) {
        int i = square_of(S, r, k);
        if (S->sq[i]) {
            continue;
        }
        uint8_t code = r->codes[k];
        S->sq[i] = code;
        S->board_key ^= Z_SQUARE[i][code];
        P->placed[P->nplaced++] = i;
        int tile = (code & BLANK_BIT) ? 0 : code;
        rack_take(S, S->me, tile, S->layout->values[tile]);
    }
    refresh_around(S, P->placed, P->nplaced);
}

static void unplay_tiles(Search *S, Ply *P) {
    undo_to(S, P->undo_mark);
    for (int k = P->nplaced - 1; k >= 0; k--) {
        int i = P->placed[k];
        uint8_t code = S->sq[i];
        S->sq[i] = 0;
        S->board_key ^= Z_SQUARE[i][code];
        int tile = (code & BLANK_BIT) ? 0 : code;
        rack_give(S, S->me, tile, S->layout->values[tile]);
    }
    P->nplaced = 0;
}

/* Every move for the side to move into the sink, from the anchors and cross-checks kept. */
static void generate_here(Search *S) {
    const uint32_t *masks[2] = {S->masks[0], S->masks[1]};
    const int64_t *scores[2] = {S->scores[0], S->scores[1]};
#ifdef ENDGAME_CHECK_INCREMENTAL
    Search *copy = malloc(sizeof *copy);
    memcpy(copy, S, sizeof *copy);
    refresh_all(copy);
    if (memcmp(copy->anchor, S->anchor, sizeof S->anchor) || memcmp(copy->masks, S->masks, sizeof S->masks) ||
        memcmp(copy->scores, S->scores, sizeof S->scores)) {
        abort();
    }
    free(copy);
#endif
    generate_prepared(S->gen, S->sq, S->anchor, masks, scores);
}

static void prepare_gen(Search *S, Sink *sink) {
    Gen *G = S->gen;
    G->sink = sink;
    memcpy(G->rack, S->rack[S->me], RACK_CODES);
    G->bits = 0;
    for (int code = 1; code < RACK_CODES; code++) {
        if (G->rack[code]) {
            G->bits |= (uint32_t)1 << code;
        }
    }
}

/* Static order: the going-out placements first, then the others, each in rank order. */
static int static_cmp(const void *a, const void *b) {
    const Record *x = (const Record *)a, *y = (const Record *)b;
    if (x->pad[1] != y->pad[1]) {
        return x->pad[1] ? -1 : 1;
    }
    return rank_cmp(x, y);
}

/* Every placement for the side to move into P, in static order. 0, or -1 out of memory. */
static int list_moves(Search *S, Ply *P) {
    Sink sink = {0};
    sink.items = P->moves;
    sink.cap = P->cap;
    prepare_gen(S, &sink);
    generate_here(S);
    P->moves = sink.items;
    P->cap = sink.cap;
    P->count = sink.count;
    P->outs = 0;
    if (sink.failed) {
        S->fail_memory = 1;
        S->stop = STOP_ERROR;
        P->count = 0;
        return -1;
    }
    int held = S->tiles[S->me];
    for (size_t m = 0; m < P->count; m++) {
        Record *r = &P->moves[m];
        int placed = 0;
        for (int k = 0; k < r->length; k++) {
            placed += S->sq[square_of(S, r, k)] == 0;
        }
        r->pad[0] = (uint8_t)placed;
        r->pad[1] = placed == held;
        P->outs += placed == held;
    }
    if (P->count > 1) {
        qsort(P->moves, P->count, sizeof(Record), static_cmp);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Stopping: the clock, the signals, the progress callback.
 */
static PyObject *record_bytes(const Record *r) {
    Record clean = *r;
    memset(clean.pad, 0, sizeof clean.pad);
    clean.leave = 0;
    return PyBytes_FromStringAndSize((const char *)&clean, sizeof clean);
}

/* With the GIL held: the progress callback; -1 (stop) if it raised. */
static int call_progress(Search *S) {
    if (S->progress == NULL) {
        return 0;
    }
    PyObject *best = S->have_best ? record_bytes(&S->best_record) : (Py_INCREF(Py_None), Py_None);
    if (best == NULL) {
        return -1;
    }
    PyObject *result = PyObject_CallFunction(S->progress, "iKLN", S->depth_now, (unsigned long long)S->nodes,
                                             (long long)(S->have_best ? S->best_value : 0), best);
    if (result == NULL) {
        if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
            /* Ctrl-C while the callback ran (its handler runs in any Python code): a stop */
            PyErr_Clear();
            S->stop = STOP_INTERRUPT;
            return 0;
        }
        return -1;
    }
    Py_DECREF(result);
    return 0;
}

/* With the GIL released: take it, run the signal handlers and the progress callback. */
static void visit_python(Search *S, double now, int force_progress) {
    PyEval_RestoreThread(S->thread);
    if (PyErr_CheckSignals() < 0) {
        if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
            PyErr_Clear();
            S->stop = STOP_INTERRUPT;
        } else {
            S->stop = STOP_ERROR;
        }
    } else if (force_progress || now - S->last_progress >= PROGRESS_EVERY) {
        S->last_progress = now;
        if (call_progress(S) < 0) {
            S->stop = STOP_ERROR;
        }
    }
    S->last_gil = now_seconds();
    S->thread = PyEval_SaveThread();
}

/* Nonzero when the search must stop. */
static int poll(Search *S) {
    if (S->stop) {
        return 1;
    }
    double now = now_seconds();
    if (S->deadline > 0 && now >= S->deadline) {
        S->stop = STOP_TIME;
        return 1;
    }
    if (now - S->last_gil >= GIL_EVERY) {
        visit_python(S, now, 0);
    }
    return S->stop != GOING;
}

/* ---------------------------------------------------------------------------------------
 * The table.
 */
static Bucket *bucket_of(const Search *S, uint64_t key) {
#if defined(__SIZEOF_INT128__)
    return &S->table[(size_t)(((unsigned __int128)key * S->buckets) >> 64)];
#else
    return &S->table[key % S->buckets];
#endif
}

static const Entry *probe(const Search *S, uint64_t key) {
    const Bucket *b = bucket_of(S, key);
    if (b->deep.flags && b->deep.key == key) {
        return &b->deep;
    }
    if (b->recent.flags && b->recent.key == key) {
        return &b->recent;
    }
    return NULL;
}

static void store(Search *S, uint64_t key, int64_t value, uint32_t move, int depth, int flags) {
    Bucket *b = bucket_of(S, key);
    Entry e = {key, value, move, (uint16_t)depth, (uint8_t)flags, 0};
    if (b->deep.flags == 0 || b->deep.key == key || depth >= b->deep.depth) {
        if (b->deep.flags && b->deep.key != key) {
            b->recent = b->deep; /* the one it displaces may still serve */
        }
        b->deep = e;
    } else {
        b->recent = e;
    }
}

/* ---------------------------------------------------------------------------------------
 * The greedy playout that values a position at the depth limit: both sides in turn play
 * their first placement in rank order (the pass when there is none), with the same endings.
 */
static int64_t playout(Search *S) {
    uint8_t racks[2][RACK_CODES];
    int tiles[2];
    int64_t face[2];
    uint64_t board_key = S->board_key, rack_key[2][2];
    memcpy(racks, S->rack, sizeof racks);
    memcpy(tiles, S->tiles, sizeof tiles);
    memcpy(face, S->face, sizeof face);
    memcpy(rack_key, S->rack_key, sizeof rack_key);
    int me = S->me, s = S->s;
    size_t mark = S->undo_count;
    int placed[2 * MAX_RACK];
    int nplaced = 0;
    int64_t total = 0, sign = 1;
    Ply scratch;
    for (;;) {
        S->best_sink.count = 0;
        S->best_sink.total = 0;
        prepare_gen(S, &S->best_sink);
        generate_here(S);
        int64_t opponent_face = S->face[S->me ^ 1];
        if (S->best_sink.count == 0) {
            if (S->s + 1 >= S->limit) {
                total += sign * (S->stuck_loss * (opponent_face - S->face[S->me]));
                break;
            }
            S->s++;
        } else {
            const Record *r = &S->best_sink.items[0];
            play_tiles(S, r, &scratch);
            for (int k = 0; k < scratch.nplaced; k++) {
                placed[nplaced++] = scratch.placed[k];
            }
            if (S->tiles[S->me] == 0) {
                total += sign * (r->score + S->out_bonus * opponent_face);
                break;
            }
            int next = r->score ? 0 : S->s + 1;
            if (next >= S->limit) {
                total += sign * (r->score + S->stuck_loss * (opponent_face - S->face[S->me]));
                break;
            }
            total += sign * r->score;
            S->s = next;
        }
        S->me ^= 1;
        sign = -sign;
    }
    undo_to(S, mark);
    for (int k = 0; k < nplaced; k++) {
        S->sq[placed[k]] = 0;
    }
    memcpy(S->rack, racks, sizeof racks);
    memcpy(S->tiles, tiles, sizeof tiles);
    memcpy(S->face, face, sizeof face);
    memcpy(S->rack_key, rack_key, sizeof rack_key);
    S->board_key = board_key;
    S->me = me;
    S->s = s;
    return total;
}

/* ---------------------------------------------------------------------------------------
 * Negamax with alpha-beta (fail-soft). *horizon is set when the value rests anywhere on a
 * depth limit (a playout): then it is an estimate, not proven.
 */

/* The value of placement r when it ends the game (1), else 0 and the next scoreless count. */
static int placement_ends(const Search *S, const Ply *P, const Record *r, uint32_t index, int64_t *value, int *next) {
    int64_t opponent_face = S->face[S->me ^ 1];
    if (index < P->outs) {
        *value = r->score + S->out_bonus * opponent_face;
        return 1;
    }
    *next = r->score ? 0 : S->s + 1;
    if (*next >= S->limit) {
        /* the face of the rack left: the rack's minus the tiles placed */
        int64_t left = S->face[S->me];
        for (int k = 0; k < r->length; k++) {
            uint8_t code = r->codes[k];
            if (!S->sq[square_of(S, r, k)] && !(code & BLANK_BIT)) {
                left -= S->layout->values[code];
            }
        }
        *value = r->score + S->stuck_loss * (opponent_face - left);
        return 1;
    }
    return 0;
}

static int64_t search(Search *S, int ply, int depth, int64_t alpha, int64_t beta, int *horizon);

/* The value of move `index` of P (P->count: the pass) from the mover's side, searching the
 * position after it with `depth` plies left and the window (alpha, beta) for this move. */
static int64_t move_value(Search *S, int ply, uint32_t index, int depth, int64_t alpha, int64_t beta, int *horizon,
                          int *terminal) {
    Ply *P = &S->ply[ply];
    int64_t value;
    int next;
    *terminal = 0;
    if (index == P->count) { /* the pass */
        if (S->s + 1 >= S->limit) {
            *terminal = 1;
            return S->stuck_loss * (S->face[S->me ^ 1] - S->face[S->me]);
        }
        int s = S->s;
        S->s = s + 1;
        S->me ^= 1;
        value = -search(S, ply + 1, depth - 1, clamp(-beta), clamp(-alpha), horizon);
        S->me ^= 1;
        S->s = s;
        return value;
    }
    const Record *r = &P->moves[index];
    if (placement_ends(S, P, r, index, &value, &next)) {
        *terminal = 1;
        return value;
    }
    int s = S->s;
    play_tiles(S, r, P);
    S->s = next;
    S->me ^= 1;
    value = r->score - search(S, ply + 1, depth - 1, clamp(r->score - beta), clamp(r->score - alpha), horizon);
    S->me ^= 1;
    S->s = s;
    unplay_tiles(S, P);
    return value;
}

static int64_t search(Search *S, int ply, int depth, int64_t alpha, int64_t beta, int *horizon) {
    S->nodes++;
    if (poll(S)) {
        return 0;
    }
    uint64_t key = position_key(S);
    const Entry *e = probe(S, key);
    uint32_t table_move = NO_MOVE;
    if (e != NULL) {
        table_move = e->move;
        if (e->depth >= depth || !(e->flags & HORIZON)) {
            int bound = e->flags & BOUND_MASK;
            if (bound == BOUND_EXACT || (bound == BOUND_LOWER && e->value >= beta) ||
                (bound == BOUND_UPPER && e->value <= alpha)) {
                if (e->flags & HORIZON) {
                    *horizon = 1;
                }
                return e->value;
            }
        }
    }
    if (depth <= 0 || ply >= MAX_DEPTH) {
        int64_t value = playout(S);
        *horizon = 1;
        store(S, key, value, NO_MOVE, 0, BOUND_EXACT | HORIZON);
        return value;
    }
    Ply *P = &S->ply[ply];
    if (list_moves(S, P) < 0) {
        return 0;
    }
    uint32_t n = (uint32_t)P->count;
    if (table_move != NO_MOVE && (table_move > n || (table_move < P->outs && table_move != 0))) {
        table_move = NO_MOVE; /* another position's (a key collision), or a dominated one */
    }
    int64_t alpha0 = alpha, best = -INF;
    uint32_t best_move = NO_MOVE;
    int reached = 0;
    /* Order: the best going-out placement (the others score less and end the game alike),
     * the table's move, then the other placements by score, then the pass. */
    uint32_t first = P->outs ? 0 : NO_MOVE;
    for (int stage = 0; stage < 3; stage++) {
        uint32_t from, to;
        if (stage == 0) {
            if (first == NO_MOVE) {
                continue;
            }
            from = 0, to = 1;
        } else if (stage == 1) {
            if (table_move == NO_MOVE || table_move == first) {
                continue;
            }
            from = table_move, to = table_move + 1;
        } else {
            from = P->outs, to = n + 1;
        }
        for (uint32_t i = from; i < to; i++) {
            if (stage == 2 && i == table_move) {
                continue;
            }
            int terminal;
            int64_t value = move_value(S, ply, i, depth, alpha, beta, &reached, &terminal);
            if (S->stop) {
                return 0;
            }
            if (value > best) {
                best = value;
                best_move = i;
                if (value > alpha) {
                    alpha = value;
                    if (alpha >= beta) {
                        goto done;
                    }
                }
            }
        }
    }
done:;
    int bound = best <= alpha0 ? BOUND_UPPER : best >= beta ? BOUND_LOWER : BOUND_EXACT;
    store(S, key, best, best_move, depth, bound | (reached ? HORIZON : 0));
    if (reached) {
        *horizon = 1;
    }
    return best;
}

/* ---------------------------------------------------------------------------------------
 * The root: iterative deepening over the first moves in static order, the K best exact.
 */
typedef struct {
    uint32_t count; /* placements; the pass is index `count` */
    int top;
    int64_t *value;   /* this iteration's values */
    uint8_t *exact;   /* ... and which are exact */
    int64_t *kept;    /* the last finished iteration's values */
    uint8_t *kept_ok; /* ... and which are exact */
    uint32_t *order;  /* the K best indexes, best first */
    uint32_t listed;
} Root;

/* The K best exact moves by (value high first, static order), from values[] where ok[]. */
static uint32_t rank_best(const Root *R, const int64_t *values, const uint8_t *ok, uint32_t *out) {
    uint32_t n = 0;
    for (uint32_t i = 0; i <= R->count; i++) {
        if (!ok[i]) {
            continue;
        }
        /* insertion into out[0..n) kept sorted, at most top long */
        uint32_t at = n;
        while (at > 0 && values[out[at - 1]] < values[i]) {
            at--;
        }
        if (at >= (uint32_t)R->top) {
            continue;
        }
        uint32_t end = n < (uint32_t)R->top ? n : (uint32_t)R->top - 1;
        memmove(out + at + 1, out + at, (size_t)(end - at) * sizeof *out);
        out[at] = i;
        if (n < (uint32_t)R->top) {
            n++;
        }
    }
    return n;
}

/* One iteration at `depth` plies. Returns 0 when it finished (*horizon: whether any line
 * reached the depth limit), -1 when it was stopped. */
static int root_iteration(Search *S, Root *R, int depth, int *horizon) {
    int64_t *tops = malloc(sizeof(int64_t) * (size_t)R->top); /* exact values, high first */
    if (tops == NULL) {
        S->fail_memory = 1;
        S->stop = STOP_ERROR;
        return -1;
    }
    uint32_t known = 0;
    memset(R->exact, 0, R->count + 1);
    for (uint32_t i = 0; i <= R->count; i++) {
        int64_t alpha = known >= (uint32_t)R->top ? tops[R->top - 1] : -INF;
        int terminal, reached = 0;
        int64_t value = move_value(S, 0, i, depth, alpha, INF, &reached, &terminal);
        if (S->stop) {
            free(tops);
            return -1;
        }
        *horizon |= reached;
        R->value[i] = value;
        if (terminal || value > alpha) {
            R->exact[i] = 1;
            uint32_t at = known < (uint32_t)R->top ? known : (uint32_t)R->top;
            while (at > 0 && tops[at - 1] < value) {
                at--;
            }
            if (at < (uint32_t)R->top) {
                uint32_t end = known < (uint32_t)R->top ? known : (uint32_t)R->top - 1;
                memmove(tops + at + 1, tops + at, (size_t)(end - at) * sizeof *tops);
                tops[at] = value;
                if (known < (uint32_t)R->top) {
                    known++;
                }
            }
        }
    }
    free(tops);
    return 0;
}

static void set_best_so_far(Search *S, const Root *R, uint32_t index) {
    Ply *P = &S->ply[0];
    S->have_best = 1;
    S->best_value = R->kept[index];
    if (index == R->count) {
        memset(&S->best_record, 0, sizeof S->best_record);
        S->best_record.kind = KIND_PASS;
    } else {
        S->best_record = P->moves[index];
    }
}

/* ---------------------------------------------------------------------------------------
 * The principal variation.
 */
typedef struct {
    Record *items;
    size_t count, cap;
} Line;

static int line_add(Line *line, const Record *r) {
    if (line->count == line->cap) {
        size_t cap = line->cap ? 2 * line->cap : 16;
        Record *items = realloc(line->items, cap * sizeof(Record));
        if (items == NULL) {
            return -1;
        }
        line->items = items;
        line->cap = cap;
    }
    Record clean = *r;
    memset(clean.pad, 0, sizeof clean.pad);
    clean.leave = 0;
    line->items[line->count++] = clean;
    return 0;
}

/* Play move `index` of ply 0's list (or the pass) for good: nonzero when the game ended. */
static int advance(Search *S, uint32_t index, Line *line) {
    Ply *P = &S->ply[0];
    Record pass;
    memset(&pass, 0, sizeof pass);
    pass.kind = KIND_PASS;
    const Record *r = index == P->count ? &pass : &P->moves[index];
    if (line_add(line, r) < 0) {
        S->fail_memory = 1;
        return 1;
    }
    if (index == P->count) {
        if (S->s + 1 >= S->limit) {
            return 1;
        }
        S->s++;
    } else {
        int64_t value;
        int next;
        if (placement_ends(S, P, r, index, &value, &next)) {
            return 1;
        }
        play_tiles(S, r, P);
        P->nplaced = 0; /* kept on the board */
        S->s = next;
    }
    S->me ^= 1;
    return 0;
}

/* From the position after the root's best move (worth `value` to its mover when proven):
 * the first move in static order that keeps the exact value, by null-window searches; once
 * stopped (or when not proven), the table's best moves as far as they go. */
static void principal_variation(Search *S, const Root *R, uint32_t best, int proven, Line *line) {
    Ply *P = &S->ply[0];
    if (list_moves(S, P) < 0 || advance(S, best, line)) {
        return;
    }
    const Record *first = best == R->count ? NULL : &line->items[0];
    int64_t value = (first ? first->score : 0) - R->kept[best];
    for (int steps = 0; steps < 1 << 20; steps++) {
        if (list_moves(S, P) < 0) {
            return;
        }
        uint32_t chosen = NO_MOVE;
        if (proven && !S->stop) {
            for (uint32_t i = 0; i <= P->count && chosen == NO_MOVE; i++) {
                int terminal, reached = 0;
                /* is this move worth at least `value`? (it cannot be worth more) */
                int64_t got = move_value(S, 0, i, MAX_DEPTH, value - 1, value, &reached, &terminal);
                if (S->stop) {
                    break;
                }
                if (got >= value) {
                    chosen = i;
                }
            }
        }
        if (chosen == NO_MOVE) {
            const Entry *e = probe(S, position_key(S));
            if (e == NULL || e->move == NO_MOVE || e->move > P->count) {
                return;
            }
            chosen = e->move;
            proven = 0;
        }
        int64_t score = chosen == P->count ? 0 : P->moves[chosen].score;
        if (advance(S, chosen, line)) {
            return;
        }
        value = score - value;
    }
}

/* ---------------------------------------------------------------------------------------
 * The entry point.
 */
static int valid_square(uint8_t code) {
    return code == 0 || (code >= 1 && code <= 26) || (code >= (BLANK_BIT | 1) && code <= (BLANK_BIT | 26));
}

/* An int argument within lo..hi, else ValueError naming it. */
static int int_arg(PyObject *obj, const char *name, long long lo, long long hi, long long *out) {
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "endgame: %s must be an int, not %.100s", name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow || v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "endgame: %s must be %lld..%lld", name, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* A rack of 27 counts, 1..MAX_RACK tiles. */
static int rack_arg(const Py_buffer *view, const char *name) {
    if (view->len != RACK_CODES) {
        PyErr_Format(PyExc_ValueError, "endgame: %s must be 27 counts (blanks, then A..Z)", name);
        return -1;
    }
    int tiles = 0;
    for (int k = 0; k < RACK_CODES; k++) {
        tiles += ((const uint8_t *)view->buf)[k];
    }
    if (tiles < 1 || tiles > MAX_RACK) {
        PyErr_Format(PyExc_ValueError, "endgame: %s must hold 1..%d tiles, not %d", name, MAX_RACK, tiles);
        return -1;
    }
    return 0;
}

const char endgame_doc[] = PyDoc_STR(
    "endgame(lexicon, layout, squares, mover, opponent, scoreless, scoreless_limit, out_gain, out_loss,\n"
    "        stuck_loss, plies, top, seconds, tt_mb, progress)\n"
    "    -> (status, depth, nodes, best, pv)\n\n"
    "Solve the endgame (the bag empty) where `mover` (27 counts) is to move against `opponent`\n"
    "after `scoreless` scoreless turns in a row. plies=0 and seconds=0: no limit. status 0\n"
    "proven, 1 cut by plies, 2 cut by time, 3 interrupted (Ctrl-C). best: (value, record) for\n"
    "the `top` best first moves, best first; pv: packed records from the best first move on.\n"
    "progress(depth, nodes, value, record or None) is called after each iteration and about\n"
    "every 0.2 s; an exception it raises stops the search and propagates.");

PyObject *endgame(PyObject *module, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"lexicon",  "layout",     "squares", "mover", "opponent", "scoreless",
                             "scoreless_limit", "out_gain", "out_loss", "stuck_loss", "plies", "top",
                             "seconds", "tt_mb", "progress", NULL};
    PyObject *lexicon_obj, *layout_obj, *progress;
    PyObject *scoreless_obj, *limit_obj, *gain_obj, *loss_obj, *stuck_obj, *plies_obj, *top_obj, *tt_obj;
    double seconds;
    Py_buffer squares, mover, opponent;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!y*y*y*OOOOOOOdOO:endgame", kwlist, &LexiconType, &lexicon_obj,
                                     &LayoutType, &layout_obj, &squares, &mover, &opponent, &scoreless_obj,
                                     &limit_obj, &gain_obj, &loss_obj, &stuck_obj, &plies_obj, &top_obj, &seconds,
                                     &tt_obj, &progress)) {
        return NULL;
    }
    LexiconObject *lexicon = (LexiconObject *)lexicon_obj;
    LayoutObject *layout = (LayoutObject *)layout_obj;
    long long scoreless, limit, out_gain, out_loss, stuck_loss, plies, top, tt_mb;
    int ok = 0;
    if (!lexicon->has_view || !layout->ready) {
        PyErr_SetString(PyExc_ValueError, "endgame: the lexicon or layout was not initialised");
    } else if (squares.len != (Py_ssize_t)layout->rows * layout->cols) {
        PyErr_SetString(PyExc_ValueError, "endgame: squares must be one byte a square of the layout's board");
    } else if (rack_arg(&mover, "mover") < 0 || rack_arg(&opponent, "opponent") < 0) {
    } else if (int_arg(limit_obj, "scoreless_limit", 1, MAX_LIMIT, &limit) < 0 ||
               int_arg(scoreless_obj, "scoreless", 0, limit - 1, &scoreless) < 0 ||
               int_arg(gain_obj, "out_gain", 0, MAX_GAIN, &out_gain) < 0 ||
               int_arg(loss_obj, "out_loss", 0, MAX_GAIN, &out_loss) < 0 ||
               int_arg(stuck_obj, "stuck_loss", 0, MAX_GAIN, &stuck_loss) < 0 ||
               int_arg(plies_obj, "plies", 0, MAX_PLIES, &plies) < 0 || int_arg(top_obj, "top", 1, MAX_TOP, &top) < 0 ||
               int_arg(tt_obj, "tt_mb", 1, MAX_TT_MB, &tt_mb) < 0) {
    } else if (!(seconds >= 0 && seconds <= MAX_SECONDS)) { /* NaN too */
        PyErr_Format(PyExc_ValueError, "endgame: seconds must be 0..%d", (int)MAX_SECONDS);
    } else if (progress != Py_None && !PyCallable_Check(progress)) {
        PyErr_SetString(PyExc_TypeError, "endgame: progress must be callable or None");
    } else {
        ok = 1;
        for (Py_ssize_t i = 0; i < squares.len; i++) {
            if (!valid_square(((const uint8_t *)squares.buf)[i])) {
                PyErr_Format(PyExc_ValueError, "endgame: square %zd holds %d, not a tile code", i,
                             ((const uint8_t *)squares.buf)[i]);
                ok = 0;
                break;
            }
        }
    }
    if (!ok) {
        PyBuffer_Release(&squares);
        PyBuffer_Release(&mover);
        PyBuffer_Release(&opponent);
        return NULL;
    }
    init_zobrist();

    Search *S = calloc(1, sizeof(Search));
    Gen *G = calloc(1, sizeof(Gen));
    Ply *plies_mem = calloc(MAX_DEPTH + 2, sizeof(Ply));
    size_t buckets = ((size_t)tt_mb << 20) / sizeof(Bucket);
    Bucket *table = calloc(buckets, sizeof(Bucket));
    if (S == NULL || G == NULL || plies_mem == NULL || table == NULL) {
        free(S);
        free(G);
        free(plies_mem);
        free(table);
        PyBuffer_Release(&squares);
        PyBuffer_Release(&mover);
        PyBuffer_Release(&opponent);
        return PyErr_NoMemory();
    }
    S->gen = G;
    S->layout = layout;
    S->ply = plies_mem;
    S->table = table;
    S->buckets = buckets;
    G->g = lexicon->nodes;
    G->root = lexicon->root;
    G->dawg_root = lexicon->dawg_root;
    G->layout = layout;
    S->best_sink.keep = 1;
    S->best_sink.items = &S->best_item;
    S->best_sink.cap = 1;
    memcpy(S->sq, squares.buf, (size_t)squares.len);
    memcpy(S->rack[0], mover.buf, RACK_CODES);
    memcpy(S->rack[1], opponent.buf, RACK_CODES);
    PyBuffer_Release(&squares);
    PyBuffer_Release(&mover);
    PyBuffer_Release(&opponent);
    for (int i = 0; i < layout->rows * layout->cols; i++) {
        if (S->sq[i]) {
            S->board_key ^= Z_SQUARE[i][S->sq[i]];
        }
    }
    refresh_all(S);
    for (int p = 0; p < 2; p++) {
        for (int c = 0; c < RACK_CODES; c++) {
            S->tiles[p] += S->rack[p][c];
            S->face[p] += (int64_t)S->rack[p][c] * layout->values[c];
            S->rack_key[p][0] ^= Z_RACK[0][c][S->rack[p][c]];
            S->rack_key[p][1] ^= Z_RACK[1][c][S->rack[p][c]];
        }
    }
    S->s = (int)scoreless;
    S->limit = (int)limit;
    S->out_bonus = out_gain + out_loss;
    S->stuck_loss = stuck_loss;
    S->progress = progress == Py_None ? NULL : progress;
    S->started = now_seconds();
    S->deadline = seconds > 0 ? S->started + seconds : 0;
    S->last_gil = S->last_progress = S->started;

    Root R = {0};
    Line line = {0};
    int status = CUT_PLIES, depth_done = 0, failed = 0;
    S->thread = PyEval_SaveThread();
    Ply *P0 = &S->ply[0];
    if (list_moves(S, P0) == 0) {
        R.count = (uint32_t)P0->count;
        R.top = (int)top;
        size_t n = (size_t)R.count + 1;
        R.value = malloc(n * sizeof(int64_t));
        R.kept = malloc(n * sizeof(int64_t));
        R.exact = calloc(n, 1);
        R.kept_ok = calloc(n, 1);
        R.order = malloc(n * sizeof(uint32_t));
        if (R.value == NULL || R.kept == NULL || R.exact == NULL || R.kept_ok == NULL || R.order == NULL) {
            S->fail_memory = 1;
        }
    }
    if (!S->fail_memory) {
        int most = plies ? (int)plies : MAX_DEPTH;
        for (int depth = 1; depth <= most; depth++) {
            S->depth_now = depth;
            int horizon = 0;
            if (root_iteration(S, &R, depth, &horizon) < 0) {
                break;
            }
            memcpy(R.kept, R.value, (R.count + 1) * sizeof(int64_t));
            memcpy(R.kept_ok, R.exact, R.count + 1);
            R.listed = rank_best(&R, R.kept, R.kept_ok, R.order);
            set_best_so_far(S, &R, R.order[0]);
            depth_done = depth;
            visit_python(S, now_seconds(), 1); /* the progress callback after each iteration */
            if (!horizon) {
                status = PROVEN;
                break;
            }
            if (S->stop) {
                break;
            }
        }
        if (S->stop && R.listed == 0 && !S->fail_memory) {
            /* no iteration finished: what the cut one found */
            memcpy(R.kept, R.value, (R.count + 1) * sizeof(int64_t));
            R.listed = rank_best(&R, R.kept, R.exact, R.order);
            if (R.listed == 0) {
                /* not even one first move valued: the first in static order, by its score
                 * (exactly when it ends the game) */
                int64_t value;
                int next;
                if (R.count == 0) { /* only the pass */
                    value = S->s + 1 >= S->limit ? S->stuck_loss * (S->face[1] - S->face[0]) : 0;
                } else if (!placement_ends(S, P0, &P0->moves[0], 0, &value, &next)) {
                    value = P0->moves[0].score;
                }
                R.kept[0] = value;
                R.order[0] = 0;
                R.listed = 1;
            }
        } else if (S->stop && !S->fail_memory) {
            /* the moves the cut iteration searched exactly update the last finished one's */
            for (uint32_t i = 0; i <= R.count; i++) {
                if (R.exact[i]) {
                    R.kept[i] = R.value[i];
                    R.kept_ok[i] = 1;
                }
            }
            R.listed = rank_best(&R, R.kept, R.kept_ok, R.order);
        }
        if (S->stop == STOP_TIME) {
            status = CUT_TIME;
        } else if (S->stop == STOP_INTERRUPT) {
            status = INTERRUPTED;
        }
    }
    if (S->stop == STOP_ERROR || S->fail_memory) {
        failed = 1;
    }
    Record *root_moves = NULL;
    if (!failed && R.listed > 0) {
        /* the first moves' records, before the variation reuses ply 0's list */
        root_moves = malloc(((size_t)R.count + 1) * sizeof(Record));
        if (root_moves == NULL) {
            failed = 1;
            S->fail_memory = 1;
        } else {
            if (R.count > 0) {
                memcpy(root_moves, P0->moves, R.count * sizeof(Record));
            }
            memset(&root_moves[R.count], 0, sizeof(Record));
            root_moves[R.count].kind = KIND_PASS;
            int stopped_before = S->stop;
            principal_variation(S, &R, R.order[0], status == PROVEN, &line);
            if (S->fail_memory || S->stop == STOP_ERROR) {
                failed = 1;
            } else if (!stopped_before && S->stop == STOP_TIME) {
                status = CUT_TIME;
            } else if (!stopped_before && S->stop == STOP_INTERRUPT) {
                status = INTERRUPTED;
            }
        }
    }
    PyEval_RestoreThread(S->thread);

    PyObject *result = NULL;
    if (failed) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
    } else {
        PyObject *best = PyList_New((Py_ssize_t)R.listed);
        PyObject *pv = PyBytes_FromStringAndSize((const char *)line.items, (Py_ssize_t)(line.count * sizeof(Record)));
        for (uint32_t k = 0; best != NULL && k < R.listed; k++) {
            uint32_t i = R.order[k];
            PyObject *item = Py_BuildValue("(LN)", (long long)R.kept[i], record_bytes(&root_moves[i]));
            if (item == NULL) {
                Py_CLEAR(best);
                break;
            }
            PyList_SET_ITEM(best, k, item);
        }
        if (best != NULL && pv != NULL) {
            result = Py_BuildValue("(iiKNN)", status, depth_done, (unsigned long long)S->nodes, best, pv);
        } else {
            Py_XDECREF(best);
            Py_XDECREF(pv);
        }
    }
    free(root_moves);
    free(line.items);
    free(R.value);
    free(R.kept);
    free(R.exact);
    free(R.kept_ok);
    free(R.order);
    for (int p = 0; p < MAX_DEPTH + 2; p++) {
        free(S->ply[p].moves);
    }
    free(S->ply);
    free(S->table);
    free(S->gen);
    free(S);
    return result;
}
