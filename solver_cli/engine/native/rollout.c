/* The simulation's play-outs (issue #22; the contract is docs/sim.md, "One iteration"): the C
 * twin of play_out in lookahead/rollout.py, which stays the readable specification. One call
 * plays out every live candidate of one iteration against the same opponent rack and the same
 * bag order: the candidate, then `plies` replies where each side plays its best move by equity
 * (movegen.c's generator into a one-move heap), drawing from the bag after each placement and
 * reshuffling it after an exchange, without coming back to Python between plies.
 *
 * The shuffle after an exchange draws from splitmix64 (the generator below, implemented
 * identically in rollout.py), seeded once per iteration: every candidate sees the same
 * reshuffles. Everything else random (the opponent's rack, the bag's order) is drawn in
 * Python, once for both engines, and passed in.
 *
 * The board is endgame.h's Position (made once per call; each play-out starts from a copy):
 * pos_play updates the anchors and cross-checks only around the tiles it puts down, so a
 * reply's search does not recompute the whole board. A play-out never unplays (the next one
 * starts from the copy again), so it empties the undo log after each play, and it draws and
 * exchanges tiles on the racks itself; it never asks for the Zobrist keys, which those
 * changes leave stale.
 *
 * Nothing from Python is trusted: the board, the racks, the bag's tiles, every candidate (in
 * the board, its tiles in the mover's rack), every index and every count is checked before
 * anything runs. Values: scores stay below 2^57 (movegen.c) and a play-out makes at most
 * MAX_PLIES + 1 moves, so the points gained fit an int64 with room to spare.
 */
#include "endgame.h"

#define MAX_PLIES 20   /* sim.py's MAX_PLIES */
#define MAX_FACTOR 10  /* out_gain, out_loss, stuck_loss (rules.py's MAX_END_FACTOR) */
#define MAX_CANDIDATES 100000
#define MAX_SCORE ((int64_t)1 << 57)

/* ---------------------------------------------------------------------------------------
 * splitmix64 (Steele, Lea and Flood 2014; Vigna's reference code), and the draws made from
 * it: below(n) by rejection (no modulo bias), and Fisher-Yates from the end of the array.
 */
static uint64_t rng_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t rng_below(uint64_t *state, uint64_t n) { /* n >= 1 */
    uint64_t limit = UINT64_MAX - (UINT64_MAX % n + 1) % n; /* the largest multiple of n, minus 1 */
    uint64_t x;
    do {
        x = rng_next(state);
    } while (x > limit);
    return x % n;
}

static void rng_shuffle(uint64_t *state, uint8_t *items, size_t count) {
    for (size_t i = count; i > 1; i--) {
        size_t j = (size_t)rng_below(state, (uint64_t)i);
        uint8_t t = items[i - 1];
        items[i - 1] = items[j];
        items[j] = t;
    }
}

/* ---------------------------------------------------------------------------------------
 * One play-out.
 */
typedef struct {
    int plies, scoreless, limit, exchange_min_bag, exchange_max;
    int64_t out_gain, out_loss, stuck_loss;
    int64_t table_cap; /* no leave term from the table is above it (thousandths) */
} Game;

typedef struct {
    int64_t points; /* the mover's points minus the opponent's */
    int64_t leaves; /* the mover's last leave term minus the opponent's (0 when the game ended) */
    int ended;
    int side;   /* the side to move at the end: 0 the mover */
    int unseen; /* tiles unseen by the side to move: the bag and the other side's rack */
} Outcome;

/* A rack's face value (a blank counts nothing, as sim.py's face). */
static int64_t face(const LayoutObject *L, const uint8_t *rack) {
    int64_t sum = 0;
    for (int code = 1; code < RACK_CODES; code++) {
        sum += rack[code] * L->values[code];
    }
    return sum;
}

static int tiles(const uint8_t *rack) {
    int n = 0;
    for (int code = 0; code < RACK_CODES; code++) {
        n += rack[code];
    }
    return n;
}

/* Whether every move scoring 0 with a leave term of at most `cap` ranks after `best` (its
 * equity is strictly lower, so no tie-break can put it first). */
static int zero_score_ranks_after(const Record *best, int64_t cap) {
    if (best->score > DECISIVE) {
        return 1;
    }
    return cap - best->score * 1000 < (int64_t)best->leave;
}

/* The largest leave term the table gives any part of `rack` (the whole rack, which a pass
 * keeps, included): a bound on every move's leave that is far tighter than the table's
 * largest value; and in by_kept[k] the largest for the parts of k tiles. Racks of more tiles
 * than a table's leave and one: that largest value, for every size. */
static int64_t rack_leave_cap(const int16_t *leaves, const uint8_t *rack, int64_t table_cap, int64_t *by_kept) {
    if (leaves == NULL || tiles(rack) > MAX_LEAVE + 1) {
        int64_t cap = leaves == NULL ? 0 : table_cap;
        for (int k = 0; k <= MAX_RACK; k++) {
            by_kept[k] = cap;
        }
        return cap;
    }
    uint8_t kept[RACK_CODES];
    memset(kept, 0, sizeof kept);
    int64_t most = 10 * (int64_t)leaves[leave_index(kept)];
    int64_t sized[MAX_LEAVE + 2];
    sized[0] = most;
    for (int k = 1; k <= MAX_LEAVE + 1; k++) {
        sized[k] = INT64_MIN;
    }
    for (int size = 0;;) { /* odometer over kept[code] <= rack[code] */
        int code = 0;
        while (code < RACK_CODES && kept[code] == rack[code]) {
            size -= kept[code];
            kept[code] = 0;
            code++;
        }
        if (code == RACK_CODES) {
            break;
        }
        kept[code]++;
        size++;
        int64_t value = size <= MAX_LEAVE ? 10 * (int64_t)leaves[leave_index(kept)] : fallback_value(leaves, kept);
        most = value > most ? value : most;
        sized[size] = value > sized[size] ? value : sized[size];
    }
    for (int k = 0; k <= MAX_RACK; k++) { /* a size no part of the rack has: never asked, bounded all the same */
        by_kept[k] = k <= MAX_LEAVE + 1 && sized[k] != INT64_MIN ? sized[k] : most;
    }
    return most;
}

/* The best move by equity for the side to move (the pass is always a move, so there is one). */
static void best_move(Position *pos, int bag, const Game *game, Record *best) {
    Gen *G = pos->gen;
    const uint8_t *rack = pos->rack[pos->me];
    Sink sink = {0};
    sink.keep = 1;
    sink.items = best; /* one slot: a one-move heap never grows */
    sink.cap = 1;
    G->bag = bag;
    G->opponent = bag ? 0 : face(pos->layout, pos->rack[1 - pos->me]);
    /* only the best move is wanted: moves that cannot beat it are not valued (see record) */
    G->capped = 1;
    /* with the bag empty a leave term is at most going out's: the rule's factor times the opponent's rack */
    if (bag) {
        G->leave_cap = rack_leave_cap(G->leaves, rack, game->table_cap, G->kept_cap);
    } else {
        G->leave_cap = pos->layout->out_factor * G->opponent * 1000;
        /* a move that keeps a tile with the bag empty is charged at least the penalty for not going out */
        G->kept_cap[0] = G->leave_cap;
        for (int k = 1; k <= MAX_RACK; k++) {
            G->kept_cap[k] = G->leaves == NULL ? 0 : -NOT_OUT_PENALTY * 1000;
        }
    }
    G->shadow = 1;
    pos_generate(pos, &sink);
    G->shadow = 0;
    /* The exchanges and the pass score 0: none can beat a placement worth more than any leave
     * (the pass is always found when nothing else is). */
    if (sink.count == 0 || !zero_score_ranks_after(best, G->leave_cap)) {
        /* exchanges only with enough tiles in the bag, and never more tiles than it holds */
        int most = bag >= game->exchange_min_bag ? game->exchange_max : 0;
        other_moves(G, most < bag ? most : bag, 1);
    }
}

/* A tile from the bag onto `player`'s rack. */
static void draw_tile(Position *pos, int player, uint8_t code) {
    pos->rack[player][code]++;
    pos->tiles[player]++;
    pos->face[player] += pos->layout->values[code];
}

/* The play-out from the position in *pos (the mover, player 0, to move), which it changes. */
static Outcome play_out(Position *pos, const Record *candidate, uint8_t *bag, int bag_len, uint64_t seed,
                        const Game *game) {
    const LayoutObject *L = pos->layout;
    int64_t gained[2] = {0, 0}, last_leave[2] = {0, 0};
    int scoreless = game->scoreless, side = 0;
    uint64_t rng = seed;
    Outcome out = {0};
    Record reply;
    Ply ply_state;
    const Record *move = candidate;
    for (int ply = 0; ply <= game->plies; ply++) {
        pos->me = side;
        uint8_t *rack = pos->rack[side];
        if (ply) {
            best_move(pos, bag_len, game, &reply);
            move = &reply;
        }
        int64_t score = move->score;
        if (move->kind == KIND_PLACE) {
            pos_play(pos, move, &ply_state);
            pos->undo_count = 0; /* never unplayed: the log would only overflow */
            gained[side] += score;
            for (int k = 0; k < ply_state.nplaced && bag_len > 0; k++) {
                draw_tile(pos, side, bag[--bag_len]);
            }
            if (pos->tiles[side] == 0) { /* out, with the bag empty */
                int64_t left = face(L, pos->rack[1 - side]);
                gained[side] += game->out_gain * left;
                gained[1 - side] -= game->out_loss * left;
                out.points = gained[0] - gained[1];
                out.ended = 1;
                return out;
            }
        } else if (move->kind == KIND_EXCHANGE) {
            int thrown = move->length;
            for (int k = 0; k < thrown; k++) {
                uint8_t code = move->codes[k];
                rack[code]--;
                pos->tiles[side]--;
                pos->face[side] -= L->values[code];
            }
            for (int k = 0; k < thrown; k++) { /* the caller checked bag_len >= thrown */
                draw_tile(pos, side, bag[--bag_len]);
            }
            for (int k = 0; k < thrown; k++) {
                bag[bag_len++] = move->codes[k];
            }
            rng_shuffle(&rng, bag, (size_t)bag_len);
        }
        last_leave[side] = move->leave;
        scoreless = score == 0 ? scoreless + 1 : 0;
        if (scoreless >= game->limit) {
            gained[0] -= game->stuck_loss * face(L, pos->rack[0]);
            gained[1] -= game->stuck_loss * face(L, pos->rack[1]);
            out.points = gained[0] - gained[1];
            out.ended = 1;
            return out;
        }
        side = 1 - side;
    }
    out.points = gained[0] - gained[1];
    out.leaves = last_leave[0] - last_leave[1];
    out.side = side;
    out.unseen = bag_len + pos->tiles[1 - side];
    return out;
}

/* ---------------------------------------------------------------------------------------
 * The entry point.
 */
/* 27 counts, at most MAX_RACK tiles, copied to `out` (which is what is checked). */
static int rack_arg(const Py_buffer *view, const char *name, uint8_t *out) {
    if (view->len != RACK_CODES) {
        PyErr_Format(PyExc_ValueError, "rollout: %s must be 27 counts (blanks, then A..Z)", name);
        return -1;
    }
    memcpy(out, view->buf, RACK_CODES);
    int n = 0;
    for (int k = 0; k < RACK_CODES; k++) {
        n += out[k];
    }
    if (n > MAX_RACK) {
        PyErr_Format(PyExc_ValueError, "rollout: %s must hold at most %d tiles, not %d", name, MAX_RACK, n);
        return -1;
    }
    return 0;
}

/* A candidate the mover can play on the board: inside it, its new tiles in the rack, its
 * board tiles matching; an exchange of tiles the rack holds; a pass. NULL when it is. */
static const char *candidate_problem(const LayoutObject *L, const uint8_t *sq, const uint8_t *rack, const Record *r,
                                     int bag_len, int exchange_max) {
    uint8_t left[RACK_CODES];
    memcpy(left, rack, RACK_CODES);
    if (r->score < 0 || r->score > MAX_SCORE) {
        return "a candidate's score is out of range";
    }
    if (r->kind == KIND_PLACE) {
        int along = r->down ? L->rows : L->cols, across = r->down ? L->cols : L->rows;
        if (r->down > 1 || r->line >= across || r->length < 1 || r->length > MAX_SIDE ||
            r->start + r->length > along) {
            return "a candidate does not fit on the board";
        }
        for (int k = 0; k < r->length; k++) {
            int i = r->down ? (r->start + k) * L->cols + r->line : r->line * L->cols + r->start + k;
            uint8_t code = r->codes[k];
            if (code == 0 || !valid_square(code)) {
                return "a candidate holds a code that is not A-Z or a blank A-Z";
            }
            if (sq[i]) {
                if (sq[i] != code) {
                    return "a candidate's word does not match the board's tiles";
                }
            } else if (left[(code & BLANK_BIT) ? 0 : code]-- == 0) {
                return "a candidate uses tiles that are not on the mover's rack";
            }
        }
        return NULL;
    }
    if (r->kind == KIND_EXCHANGE) {
        if (r->length < 1 || r->length > exchange_max || r->length > bag_len) {
            return "a candidate exchanges more tiles than the rules or the bag allow";
        }
        for (int k = 0; k < r->length; k++) {
            if (r->codes[k] >= RACK_CODES || left[r->codes[k]]-- == 0) {
                return "a candidate exchanges tiles that are not on the mover's rack";
            }
        }
        return NULL;
    }
    if (r->kind == KIND_PASS) {
        return r->length == 0 ? NULL : "a pass holds tiles";
    }
    return "a candidate of an unknown kind";
}

const char rollout_doc[] = PyDoc_STR(
    "rollout(lexicon, layout, leaves, squares, rack, candidates, live, opponent, bag, seed, plies,\n"
    "        scoreless, scoreless_limit, exchange_min_bag, exchange_max, out_gain, out_loss, stuck_loss)\n"
    "    -> [(points, leaves, ended, side, unseen), ...]\n\n"
    "One iteration of a simulation: each candidate of `live` (indices into `candidates`, packed\n"
    "records) played on the board by the mover (`rack`, 27 counts), then `plies` best replies\n"
    "by equity, against the opponent's rack and the bag (tile codes, drawn from its end);\n"
    "exchanges reshuffle the bag with splitmix64 seeded `seed`. Per candidate: the mover's points\n"
    "minus the opponent's, the last leave terms' difference (thousandths), whether the game\n"
    "ended, the side to move at the end (0 the mover) and the tiles it cannot see.");

PyObject *rollout(PyObject *module, PyObject *args) {
    PyObject *lexicon_obj, *layout_obj, *leaves_obj, *live_obj, *seed_obj;
    PyObject *plies_obj, *scoreless_obj, *limit_obj, *min_bag_obj, *ex_max_obj, *gain_obj, *loss_obj, *stuck_obj;
    Py_buffer squares, rack, candidates, opponent, bag;
    (void)module;
    if (!PyArg_ParseTuple(args, "O!O!Oy*y*y*Oy*y*OOOOOOOOO:rollout", &LexiconType, &lexicon_obj, &LayoutType,
                          &layout_obj, &leaves_obj, &squares, &rack, &candidates, &live_obj, &opponent, &bag,
                          &seed_obj, &plies_obj, &scoreless_obj, &limit_obj, &min_bag_obj, &ex_max_obj, &gain_obj,
                          &loss_obj, &stuck_obj)) {
        return NULL;
    }
    LexiconObject *lexicon = (LexiconObject *)lexicon_obj;
    LayoutObject *layout = (LayoutObject *)layout_obj;
    const int16_t *leave_values = NULL;
    PyObject *live = NULL, *result = NULL;
    Gen *G = NULL;
    Position *base = NULL, *work = NULL;
    uint8_t *bag_work = NULL, *bag_in = NULL;
    Record *records = NULL;
    Outcome *outcomes = NULL;
    size_t *chosen = NULL;
    Py_ssize_t live_count = 0;
    size_t ncand = 0;
    uint64_t seed = 0;
    long long plies, scoreless, limit, min_bag, ex_max, out_gain, out_loss, stuck_loss;
    Game game;
    /* Everything is copied before it is checked, and only the copies are read: a bytearray's
     * bytes could change while the GIL is released. */
    uint8_t sq_in[MAX_SQUARES], mover[RACK_CODES], them[RACK_CODES];

    if (!lexicon->has_view || !layout->ready) {
        PyErr_SetString(PyExc_ValueError, "rollout: the lexicon or layout was not initialised");
        goto done;
    }
    if (leaves_obj != Py_None) {
        if (!PyObject_TypeCheck(leaves_obj, &LeavesType) || ((LeavesObject *)leaves_obj)->values == NULL) {
            PyErr_SetString(PyExc_TypeError, "rollout: leaves must be a Leaves table or None");
            goto done;
        }
        leave_values = ((LeavesObject *)leaves_obj)->values;
    }
    if (squares.len != (Py_ssize_t)layout->rows * layout->cols) {
        PyErr_SetString(PyExc_ValueError, "rollout: squares must be one byte a square of the layout's board");
        goto done;
    }
    memcpy(sq_in, squares.buf, (size_t)squares.len);
    for (Py_ssize_t i = 0; i < squares.len; i++) {
        if (!valid_square(sq_in[i])) {
            PyErr_SetString(PyExc_ValueError, "rollout: squares: a code that is not empty, A-Z or a blank A-Z");
            goto done;
        }
    }
    if (rack_arg(&rack, "rack", mover) < 0 || rack_arg(&opponent, "opponent", them) < 0) {
        goto done;
    }
    if (bag.len > MAX_BAG) {
        PyErr_Format(PyExc_ValueError, "rollout: the bag must hold at most %d tiles", MAX_BAG);
        goto done;
    }
    bag_in = malloc((size_t)bag.len + 1);
    if (bag_in == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(bag_in, bag.buf, (size_t)bag.len);
    for (Py_ssize_t i = 0; i < bag.len; i++) {
        if (bag_in[i] >= RACK_CODES) {
            PyErr_SetString(PyExc_ValueError, "rollout: the bag holds a code that is not a tile (0..26)");
            goto done;
        }
    }
    if (!PyLong_Check(seed_obj)) {
        PyErr_SetString(PyExc_TypeError, "rollout: seed must be an int");
        goto done;
    }
    seed = PyLong_AsUnsignedLongLong(seed_obj);
    if (seed == (uint64_t)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "rollout: seed must be 0..2**64-1");
        goto done;
    }
    if (int_arg("rollout", plies_obj, "plies", 0, MAX_PLIES, &plies) < 0 ||
        int_arg("rollout", limit_obj, "scoreless_limit", 1, MAX_LIMIT, &limit) < 0 ||
        int_arg("rollout", scoreless_obj, "scoreless", 0, limit - 1, &scoreless) < 0 ||
        int_arg("rollout", min_bag_obj, "exchange_min_bag", 1, MAX_BAG, &min_bag) < 0 ||
        int_arg("rollout", ex_max_obj, "exchange_max", 0, layout->rack_size, &ex_max) < 0 ||
        int_arg("rollout", gain_obj, "out_gain", 0, MAX_FACTOR, &out_gain) < 0 ||
        int_arg("rollout", loss_obj, "out_loss", 0, MAX_FACTOR, &out_loss) < 0 ||
        int_arg("rollout", stuck_obj, "stuck_loss", 0, MAX_FACTOR, &stuck_loss) < 0) {
        goto done;
    }
    if (candidates.len % (Py_ssize_t)sizeof(Record) != 0 ||
        candidates.len / (Py_ssize_t)sizeof(Record) > MAX_CANDIDATES) {
        PyErr_Format(PyExc_ValueError, "rollout: candidates must be packed records, at most %d", MAX_CANDIDATES);
        goto done;
    }
    ncand = (size_t)candidates.len / sizeof(Record);
    records = malloc(ncand * sizeof(Record) + 1);
    if (records == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(records, candidates.buf, ncand * sizeof(Record));
    for (size_t c = 0; c < ncand; c++) {
        const char *problem = candidate_problem(layout, sq_in, mover, &records[c], (int)bag.len, (int)ex_max);
        if (problem != NULL) {
            PyErr_Format(PyExc_ValueError, "rollout: candidate %zu: %s", c, problem);
            goto done;
        }
    }
    live = PySequence_Fast(live_obj, "rollout: live must be a sequence of candidate indices");
    if (live == NULL) {
        goto done;
    }
    live_count = PySequence_Fast_GET_SIZE(live);
    if ((size_t)live_count > ncand) {
        PyErr_SetString(PyExc_ValueError, "rollout: more live candidates than candidates");
        goto done;
    }
    outcomes = calloc((size_t)live_count + 1, sizeof(Outcome));
    chosen = calloc((size_t)live_count + 1, sizeof(size_t));
    if (outcomes == NULL || chosen == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < live_count; k++) {
        long long index;
        PyObject *item = PySequence_Fast_GET_ITEM(live, k);
        if (int_arg("rollout", item, "a live index", 0, (long long)ncand - 1, &index) < 0) {
            goto done;
        }
        chosen[k] = (size_t)index;
    }
    game.plies = (int)plies;
    game.scoreless = (int)scoreless;
    game.limit = (int)limit;
    game.exchange_min_bag = (int)min_bag;
    game.exchange_max = (int)ex_max;
    game.out_gain = out_gain;
    game.out_loss = out_loss;
    game.stuck_loss = stuck_loss;
    game.table_cap = leave_values == NULL ? 0 : ((LeavesObject *)leaves_obj)->max_term;

    G = calloc(1, sizeof(Gen));
    base = malloc(sizeof(Position));
    work = malloc(sizeof(Position));
    bag_work = malloc((size_t)bag.len + 1);
    if (G != NULL) {
        G->saved = malloc(2 * MAX_SIDE * sizeof(SavedLine));
    }
    if (G == NULL || G->saved == NULL || base == NULL || work == NULL || bag_work == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    G->g = lexicon->nodes;
    G->root = lexicon->root;
    G->dawg_root = lexicon->dawg_root;
    G->layout = layout;
    G->leaves = leave_values;
    endgame_init_zobrist(); /* (pos_init reads the keys; made once, with the GIL held) */
    int bag_len = (int)bag.len;

    Py_BEGIN_ALLOW_THREADS
    /* every letter's cross-checks: the racks draw tiles they do not hold now */
    pos_init(base, G, layout, sq_in, mover, them, ALL_LETTERS, game.scoreless, game.limit, out_gain + out_loss,
             stuck_loss);
    for (Py_ssize_t k = 0; k < live_count; k++) {
        memcpy(work, base, sizeof(Position));
        memcpy(bag_work, bag_in, (size_t)bag_len);
        outcomes[k] = play_out(work, &records[chosen[k]], bag_work, bag_len, seed, &game);
    }
    Py_END_ALLOW_THREADS

    result = PyList_New(live_count);
    if (result == NULL) {
        goto done;
    }
    for (Py_ssize_t k = 0; k < live_count; k++) {
        const Outcome *o = &outcomes[k];
        PyObject *item = Py_BuildValue("(LLiii)", (long long)o->points, (long long)o->leaves, o->ended, o->side,
                                       o->unseen);
        if (item == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, k, item);
    }
done:
    Py_XDECREF(live);
    free(outcomes);
    free(chosen);
    if (G != NULL) {
        free(G->saved);
    }
    free(G);
    free(base);
    free(work);
    free(bag_work);
    free(bag_in);
    free(records);
    PyBuffer_Release(&squares);
    PyBuffer_Release(&rack);
    PyBuffer_Release(&candidates);
    PyBuffer_Release(&opponent);
    PyBuffer_Release(&bag);
    return result;
}
