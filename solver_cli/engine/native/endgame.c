/* The exact endgame search (issue #21; the contract is docs/endgame.md): with the bag empty
 * both racks are known, and the value of a position is found by negamax with alpha-beta,
 * iterative deepening and a transposition table with Zobrist keys. The C twin of the Python
 * search in lookahead/endgame.py: for a proven search both give the same value, the same K
 * best first moves and the same principal variation.
 *
 * The position (one square array played on and unplayed, both racks, the move lists) is
 * endgame_pos.c's, the Python entry point endgame_py.c's (endgame.h lists the files). Each
 * node's moves come from movegen.c's generator into a buffer per ply that is reused from
 * node to node. Going-out placements are scored without playing them.
 *
 * Determinism: inside the tree moves are ordered for speed (the best going-out placement,
 * the table's move, then the rest by score; the other going-out placements are skipped, as
 * they are worth less than the first), and only values matter there. At the root each move
 * is searched with alpha = the bar it must clear to enter the K best so far (ties go to the
 * earlier move in static order: going-out placements, the others, each in rank order, then
 * the pass), so the K best are exact whatever order they are tried in (root_iteration).
 * The principal variation is then made of the first move in static order that keeps each
 * position's exact value (null-window searches with the table warm).
 *
 * The search runs without the GIL; poll() hands over to endgame_py.c about every 0.1 s.
 *
 * Values: every score is below 2^57 (see movegen.c) and a side makes at most MAX_RACK scoring
 * moves, so |value| < 2^62 - 2^57 and the window bounds +-INF (INT64_MAX / 2) lie beyond any
 * real value; windows are clamped to them, so no sum of a score and a bound overflows.
 */
#include "endgame.h"

enum { BOUND_LOWER = 1, BOUND_UPPER = 2, BOUND_EXACT = 3, BOUND_MASK = 3, HORIZON = 4 };

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

struct Bucket {
    Entry deep, recent;
};

/* The list two plies up of the node at `ply` (the same player's), or NULL: at ply 1, the
 * other side's list made at the root (S->pre). */
static const Ply *two_up(const Search *S, int ply) {
    return ply >= 2 ? &S->ply[ply - 2] : ply == 1 && S->pre_ready ? &S->pre : NULL;
}

/* S->pre for the root position as it is now: 0, or -1 out of memory (the search stops). */
static int list_pre(Search *S) {
    S->pos.me ^= 1;
    int failed = pos_list_moves(&S->pos, &S->pre) < 0;
    S->pos.me ^= 1;
    S->pre.lines[0] = S->pre.lines[1] = 0; /* (no play between it and the root) */
    S->pre_ready = !failed;
    if (failed) {
        S->fail_memory = 1;
        S->stop = STOP_ERROR;
        return -1;
    }
    return 0;
}

/* The moves at `ply`, from the list two plies up (the same player's) where there is one;
 * out of memory stops the search. */
static int list_moves(Search *S, int ply) {
    Ply *P = &S->ply[ply];
    int failed;
    P->outs_up_ready = 0; /* (made for this node's moves at the first one tried) */
    if (two_up(S, ply) != NULL) {
        const Ply *ref = two_up(S, ply), *between = &S->ply[ply - 1];
        uint32_t changed[2] = {ref->lines[0] | between->lines[0], ref->lines[1] | between->lines[1]};
        failed = pos_list_moves_since(&S->pos, P, ref, changed) < 0;
    } else {
        failed = pos_list_moves(&S->pos, P) < 0;
    }
    if (failed) {
        S->fail_memory = 1;
        S->stop = STOP_ERROR;
        return -1;
    }
    return 0;
}

/* Inside the tree, the placements that do not go out are tried by their score plus
 * ORDER_TILE_POINTS for each tile they place, high first (ties in static order): emptying
 * the rack is what an endgame is about (the tiles kept count against their holder at the
 * end, and fewer tiles go out sooner). On the first 20 bench endgames this cut the nodes
 * of the proven ones by up to half against score alone (405,669 to 211,029 on the fourth)
 * and the median time from 4.7 s to 3.0 s; on four of them 8 points did better than 1, 3 or
 * 5, and about as well as 12.5 or 25 (fewer nodes on some, more on others).
 * Values do not depend on the order, only the time does (the Python twin orders alike).
 *
 * A verdict (endgame_decide) tries them by score plus DECIDE_TILE_POINTS a tile instead:
 * it needs one line that stays on the right side of the threshold, and the lines that
 * empty the rack soonest end the game, and so rest on no depth limit, soonest. On all 200
 * bench endgames with the threshold 40 points below the value, 30 points a tile proved 194
 * within 5 s against 192 with 8, the ones both proved in 1.75 million nodes against 6.0
 * (bench endgame 33: 3,006,117 to 415); 40 above it, 15% fewer nodes (163 proven against
 * 164); 8 below it, the same. 50 points did as 30. */
#define ORDER_TILE_POINTS 8
#define DECIDE_TILE_POINTS 30

/* P's placements outs..n-1 into P->order in the order to try them: their count, or -1
 * out of memory. (A key beyond the packed field's range is clamped: the order then is
 * not the best, never wrong, as values do not depend on it.) */
#define TRIED_KEY_MAX (((int64_t)1 << (63 - SORT_INDEX_BITS)) - 1)

static long order_moves(Ply *P, uint32_t n, int64_t tile_points) {
    if (n > P->order_cap) {
        size_t cap = (size_t)n * 2;
        uint32_t *grown = realloc(P->order, cap * sizeof *grown);
        if (grown == NULL) {
            return -1;
        }
        P->order = grown;
        P->order_cap = cap;
    }
    if (ply_reserve_keys(P, n) < 0) {
        return -1;
    }
    long count = 0;
    for (uint32_t i = P->outs; i < n; i++) {
        const Record *r = &P->moves[i];
        int64_t key = r->score + tile_points * (int64_t)r->pad[0];
        key = key < 0 ? 0 : key > TRIED_KEY_MAX ? TRIED_KEY_MAX : key;
        /* high keys first, ties in static order */
        P->keys[count++] = (uint64_t)(TRIED_KEY_MAX - key) << SORT_INDEX_BITS | i;
    }
    if (count > 1) {
        sort_keys(P->keys, P->keys + count, (size_t)count);
    }
    for (long k = 0; k < count; k++) {
        P->order[k] = (uint32_t)(P->keys[k] & SORT_INDEX_MASK);
    }
    return count;
}

static int64_t clamp(int64_t v) { return v > INF ? INF : v < -INF ? -INF : v; }

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

static void place(Search *S, const Entry *e) {
    Bucket *b = bucket_of(S, e->key);
    if (b->deep.flags == 0 || b->deep.key == e->key || e->depth >= b->deep.depth) {
        if (b->deep.flags && b->deep.key != e->key) {
            S->filled += b->recent.flags == 0;
            b->recent = b->deep; /* the one it displaces may still serve */
        }
        S->filled += b->deep.flags == 0;
        b->deep = *e;
    } else {
        S->filled += b->recent.flags == 0;
        b->recent = *e;
    }
}

/* The table four times bigger (at most S->most_buckets), its entries placed again. It starts
 * small (TABLE_START_MB, or a sixteenth of the most) and grows once it holds as many
 * entries as buckets: a search of a few hundred thousand nodes never touches most of a
 * 256 MB table, and touching it costs (page faults: about 0.15 s a search on bench
 * endgames that take 0.5 s). */
static void grow(Search *S) {
    size_t size = S->buckets * 4 > S->most_buckets ? S->most_buckets : S->buckets * 4;
    Bucket *bigger = calloc(size, sizeof(Bucket));
    if (bigger == NULL) {
        S->most_buckets = S->buckets; /* (stays as it is) */
        return;
    }
    Bucket *old = S->table;
    size_t count = S->buckets;
    S->table = bigger;
    S->buckets = size;
    S->filled = 0;
    for (size_t k = 0; k < count; k++) {
        if (old[k].recent.flags) {
            place(S, &old[k].recent);
        }
        if (old[k].deep.flags) {
            place(S, &old[k].deep);
        }
    }
    free(old);
}

static void store(Search *S, uint64_t key, int64_t value, uint32_t move, int depth, int flags) {
    if (S->filled >= S->buckets && S->buckets < S->most_buckets) {
        grow(S);
    }
    Entry e = {key, value, move, (uint16_t)depth, (uint8_t)flags, 0};
    place(S, &e);
}

/* ---------------------------------------------------------------------------------------
 * Negamax with alpha-beta (fail-soft). *horizon is set when the value rests anywhere on a
 * depth limit (a playout): then it is an estimate, not proven.
 */

static int64_t search(Search *S, int ply, int depth, int64_t alpha, int64_t beta, int *horizon);

/* Whether entry e gives the value of its position searched `depth` plies deep in the window
 * (alpha, beta): deep enough (or exact at any depth), and a bound on the right side. */
static int table_settles(const Entry *e, int depth, int64_t alpha, int64_t beta) {
    if (e->depth < depth && (e->flags & HORIZON)) {
        return 0;
    }
    int bound = e->flags & BOUND_MASK;
    return bound == BOUND_EXACT || (bound == BOUND_LOWER && e->value >= beta) ||
           (bound == BOUND_UPPER && e->value <= alpha);
}

/* The value of move `index` of P (P->count: the pass) from the mover's side, searching the
 * position after it with `depth` plies left and the window (alpha, beta) for this move. */
static int64_t move_value(Search *S, int ply, uint32_t index, int depth, int64_t alpha, int64_t beta, int *horizon,
                          int *terminal) {
    Ply *P = &S->ply[ply];
    int64_t value;
    int next;
    *terminal = 0;
    if (index == P->count) { /* the pass */
        if (S->pos.s + 1 >= S->pos.limit) {
            *terminal = 1;
            return S->pos.stuck_loss * (S->pos.face[S->pos.me ^ 1] - S->pos.face[S->pos.me]);
        }
        int s = S->pos.s;
        S->pos.s = s + 1;
        S->pos.me ^= 1;
        P->lines[0] = P->lines[1] = 0; /* nothing changed on the board */
        value = -search(S, ply + 1, depth - 1, clamp(-beta), clamp(-alpha), horizon);
        S->pos.me ^= 1;
        S->pos.s = s;
        return value;
    }
    const Record *r = &P->moves[index];
    if (pos_placement_ends(&S->pos, P, r, index, &value, &next)) {
        *terminal = 1;
        return value;
    }
    const Ply *ref = two_up(S, ply + 1);
    if (ref != NULL && depth >= 2) {
        /* The reply that goes out with a placement of the opponent's list one ply up, on a
         * line neither play since changes (the node after r would find it first, see
         * search()): found without playing r, which most of a node's moves come to. */
        if (!P->outs_up_ready && pos_collect_outs(&S->pos, S->pos.me ^ 1, ref, P) < 0) {
            S->fail_memory = 1;
            S->stop = STOP_ERROR;
            return 0;
        }
        uint32_t lines[2];
        int64_t placed_face, out;
        pos_lines_of(&S->pos, r, lines, &placed_face);
        uint32_t changed[2] = {ref->lines[0] | lines[0], ref->lines[1] | lines[1]};
        int64_t bonus = S->pos.out_bonus * (S->pos.face[S->pos.me] - placed_face);
        if (P->outs_up_count && pos_kept_reply_out(P, changed, bonus, clamp(r->score - alpha), &out)) {
            S->nodes++; /* (the node after r, counted as search() would) */
            return r->score - out;
        }
    }
    /* The table's answer for the position after r, when it settles the node there (as
     * search() would at its start): found without playing r, as the plays of a third or so
     * of the nodes of big searches come to, and the board's updates are the dearest part of
     * a play. */
    int64_t child_alpha = clamp(r->score - beta), child_beta = clamp(r->score - alpha);
    uint64_t child_key = pos_key_after(&S->pos, r, next);
    const Entry *e = probe(S, child_key);
    if (e != NULL && table_settles(e, depth - 1, child_alpha, child_beta)) {
        S->nodes++; /* (the node after r, counted as search() would) */
        if (e->flags & HORIZON) {
            *horizon = 1;
        }
        return r->score - e->value;
    }
    int s = S->pos.s;
    pos_play(&S->pos, r, P);
    S->pos.s = next;
    S->pos.me ^= 1;
#ifdef ENDGAME_CHECK_INCREMENTAL
    if (pos_key(&S->pos) != child_key) {
        abort();
    }
#endif
    value = r->score - search(S, ply + 1, depth - 1, child_alpha, child_beta, horizon);
    S->pos.me ^= 1;
    S->pos.s = s;
    pos_unplay(&S->pos, P);
    return value;
}

static int64_t search(Search *S, int ply, int depth, int64_t alpha, int64_t beta, int *horizon) {
    S->nodes++;
    if (poll(S)) {
        return 0;
    }
    uint64_t key = pos_key(&S->pos);
    const Entry *e = probe(S, key);
    uint32_t table_move = NO_MOVE;
    if (e != NULL) {
        table_move = e->move;
        if (table_settles(e, depth, alpha, beta)) {
            if (e->flags & HORIZON) {
                *horizon = 1;
            }
            return e->value;
        }
    }
    if (depth <= 0 || ply >= MAX_DEPTH) {
        /* the moves of both sides from their lists one and two plies up */
        const Ply *refs[2] = {NULL, NULL};
        uint32_t since[2][2] = {{0, 0}, {0, 0}};
        int me = S->pos.me;
        if (ply >= 1) {
            const Ply *up = &S->ply[ply - 1];
            refs[me ^ 1] = up;
            memcpy(since[me ^ 1], up->lines, sizeof up->lines);
            if (two_up(S, ply) != NULL) {
                refs[me] = two_up(S, ply);
                since[me][0] = up->lines[0] | refs[me]->lines[0];
                since[me][1] = up->lines[1] | refs[me]->lines[1];
            }
        }
        int64_t value = pos_playout_since(&S->pos, refs, since);
        *horizon = 1;
        store(S, key, value, NO_MOVE, 0, BOUND_EXACT | HORIZON);
        return value;
    }
    if (two_up(S, ply) != NULL) {
        /* a placement two plies up that still empties the rack and reaches beta: a cut-off
         * before listing the moves (most nodes whose side can go out end here) */
        const Ply *ref = two_up(S, ply);
        Ply *between = &S->ply[ply - 1]; /* its node collects this side's replies once (move_value) */
        if (!between->outs_up_ready && pos_collect_outs(&S->pos, S->pos.me, ref, between) < 0) {
            S->fail_memory = 1;
            S->stop = STOP_ERROR;
            return 0;
        }
        uint32_t changed[2] = {ref->lines[0] | between->lines[0], ref->lines[1] | between->lines[1]};
        int64_t out, bonus = S->pos.out_bonus * S->pos.face[S->pos.me ^ 1];
        if (between->outs_up_count && pos_kept_reply_out(between, changed, bonus, beta, &out)) {
            store(S, key, out, NO_MOVE, depth, BOUND_LOWER);
            return out;
        }
    }
    Ply *P = &S->ply[ply];
    if (list_moves(S, ply) < 0) {
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
     * the table's move, then the other placements (order_moves), then the pass. */
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
            long ordered = order_moves(P, n, S->tile_points);
            if (ordered < 0) {
                S->fail_memory = 1;
                S->stop = STOP_ERROR;
                return 0;
            }
            from = 0, to = (uint32_t)ordered + 1;
        }
        for (uint32_t k = from; k < to; k++) {
            uint32_t i = stage < 2 ? k : k < to - 1 ? P->order[k] : n; /* the pass last */
            if (stage == 2 && i == table_move) {
                continue;
            }
            int terminal, child_reached = 0;
            int64_t value = move_value(S, ply, i, depth, alpha, beta, &child_reached, &terminal);
            if (S->stop) {
                return 0;
            }
            reached |= child_reached;
            if (value > best) {
                best = value;
                best_move = i;
                if (value > alpha) {
                    alpha = value;
                    if (alpha >= beta) {
                        /* A cut-off's lower bound rests on this move alone: the moves
                         * before it, cut short by a depth limit or not, do not change it. */
                        reached = child_reached;
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

typedef struct {
    int64_t value;
    uint32_t index;
} Ranked;

/* Rank order: value high first, then static order. */
static int ranked_cmp(const void *a, const void *b) {
    const Ranked *x = (const Ranked *)a, *y = (const Ranked *)b;
    if (x->value != y->value) {
        return x->value > y->value ? -1 : 1;
    }
    return x->index < y->index ? -1 : x->index > y->index;
}

/* One iteration at `depth` plies. Returns 0 when it finished (*horizon: whether any line
 * reached the depth limit), -1 when it was stopped.
 *
 * The first moves are tried best first by the last iteration's values (static order in the
 * first), so that the K-th best value, the bar a move must clear, rises early. A move is
 * searched with the window (bar, +INF): it clears the bar when it is worth more than the
 * K-th best so far, or as much and comes earlier in static order, and then its value is
 * exact. Whatever the order, every move of the K best (by value, ties in static order)
 * clears the bar when it is searched, as fewer than K moves rank above it then; so the K
 * best are exact. (A null window first, and PVS inside, saved no nodes on the benchmark.) */
static int root_iteration(Search *S, Root *R, int depth, int *horizon) {
    uint32_t n = R->count + 1, top = (uint32_t)R->top;
    Ranked *order = malloc(sizeof(Ranked) * n);
    Ranked *tops = malloc(sizeof(Ranked) * (top + 1)); /* exact values, in rank order */
    if (order == NULL || tops == NULL) {
        free(order);
        free(tops);
        S->fail_memory = 1;
        S->stop = STOP_ERROR;
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        order[i].value = depth > 1 ? R->kept[i] : 0;
        order[i].index = i;
    }
    qsort(order, n, sizeof *order, ranked_cmp);
    uint32_t known = 0;
    memset(R->exact, 0, n);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = order[k].index;
        int64_t alpha = -INF;
        if (known >= top) {
            alpha = tops[top - 1].value - (i < tops[top - 1].index);
        }
        int terminal, reached = 0;
        int64_t value = move_value(S, 0, i, depth, alpha, INF, &reached, &terminal);
        if (S->stop) {
            free(order);
            free(tops);
            return -1;
        }
        *horizon |= reached;
        R->value[i] = value;
        if (terminal || value > alpha) {
            R->exact[i] = 1;
            Ranked item = {value, i};
            uint32_t at = known < top ? known : top;
            while (at > 0 && ranked_cmp(&tops[at - 1], &item) > 0) {
                at--;
            }
            if (at < top) {
                uint32_t end = known < top ? known : top - 1;
                memmove(tops + at + 1, tops + at, (size_t)(end - at) * sizeof *tops);
                tops[at] = item;
                if (known < top) {
                    known++;
                }
            }
        }
    }
    free(order);
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
    S->pre_ready = 0; /* (the root moves on) */
    Record pass;
    memset(&pass, 0, sizeof pass);
    pass.kind = KIND_PASS;
    const Record *r = index == P->count ? &pass : &P->moves[index];
    if (line_add(line, r) < 0) {
        S->fail_memory = 1;
        return 1;
    }
    if (index == P->count) {
        if (S->pos.s + 1 >= S->pos.limit) {
            return 1;
        }
        S->pos.s++;
    } else {
        int64_t value;
        int next;
        if (pos_placement_ends(&S->pos, P, r, index, &value, &next)) {
            return 1;
        }
        pos_play(&S->pos, r, P);
        P->nplaced = 0; /* kept on the board */
        S->pos.s = next;
    }
    S->pos.me ^= 1;
    return 0;
}

/* From the position after the root's best move (worth `value` to its mover when proven):
 * the first move in static order that keeps the exact value, by null-window searches; once
 * stopped (or when not proven), the table's best moves as far as they go. */
static void principal_variation(Search *S, const Root *R, uint32_t best, int proven, Line *line) {
    Ply *P = &S->ply[0];
    if (list_moves(S, 0) < 0 || advance(S, best, line)) {
        return;
    }
    const Record *first = best == R->count ? NULL : &line->items[0];
    int64_t value = (first ? first->score : 0) - R->kept[best];
    for (int steps = 0; steps < 1 << 20; steps++) {
        if (list_moves(S, 0) < 0 || list_pre(S) < 0) {
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
            const Entry *e = probe(S, pos_key(&S->pos));
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
 * The whole search (endgame.h).
 */
Bucket *table_new(long long tt_mb, size_t *buckets, size_t *most) {
    *most = ((size_t)tt_mb << 20) / sizeof(Bucket);
    /* (a sixteenth of a small table: so the smallest ones grow too, in the tests) */
    size_t start = ((size_t)TABLE_START_MB << 20) / sizeof(Bucket), sixteenth = *most / 16;
    if (sixteenth < start) {
        start = sixteenth > 0 ? sixteenth : 1;
    }
    *buckets = *most < start ? *most : start;
    return calloc(*buckets, sizeof(Bucket));
}

/* Iterative deepening goes 1, 4, 7, ... plies (the plies limit, when there is one, is the
 * last), not one ply at a time: each iteration re-searches the tree from the root, and the
 * table's moves from one three plies shallower order it about as well. On the first 20
 * bench endgames this took the median from 3.0 s to 1.6 s with the same 12 proven (nodes
 * of the 13th 563,799 to 213,459); steps of 2, 4 and 5 did about as well or worse. A search
 * cut by its time limit has finished fewer, deeper iterations. The Python twin goes alike
 * (DEEPEN_STEP in lookahead/endgame.py). */
#define DEEPEN_STEP 3

static int next_depth(int depth, int most) {
    return depth < most && depth + DEEPEN_STEP > most ? most : depth + DEEPEN_STEP;
}

int endgame_run(Search *S, Root *R, int plies, int top, Line *line, int *depth_done, Record **root_moves_out) {
    int status = CUT_PLIES, failed = 0;
    S->tile_points = ORDER_TILE_POINTS;
    Ply *P0 = &S->ply[0];
    if (list_moves(S, 0) == 0 && list_pre(S) == 0) {
        R->count = (uint32_t)P0->count;
        R->top = top;
        size_t n = (size_t)R->count + 1;
        R->value = malloc(n * sizeof(int64_t));
        R->kept = malloc(n * sizeof(int64_t));
        R->exact = calloc(n, 1);
        R->kept_ok = calloc(n, 1);
        R->order = malloc(n * sizeof(uint32_t));
        if (R->value == NULL || R->kept == NULL || R->exact == NULL || R->kept_ok == NULL || R->order == NULL) {
            S->fail_memory = 1;
        }
    }
    if (!S->fail_memory) {
        int most = plies ? plies : MAX_DEPTH;
        for (int depth = 1; depth <= most; depth = next_depth(depth, most)) {
            S->depth_now = depth;
            int horizon = 0;
            if (root_iteration(S, R, depth, &horizon) < 0) {
                break;
            }
            memcpy(R->kept, R->value, (R->count + 1) * sizeof(int64_t));
            memcpy(R->kept_ok, R->exact, R->count + 1);
            R->listed = rank_best(R, R->kept, R->kept_ok, R->order);
            set_best_so_far(S, R, R->order[0]);
            *depth_done = depth;
            visit_python(S, now_seconds(), 1); /* the progress callback after each iteration */
            if (!horizon) {
                status = PROVEN;
                break;
            }
            if (S->stop) {
                break;
            }
        }
        if (S->stop && R->listed == 0 && !S->fail_memory) {
            /* no iteration finished: what the cut one found */
            memcpy(R->kept, R->value, (R->count + 1) * sizeof(int64_t));
            R->listed = rank_best(R, R->kept, R->exact, R->order);
            if (R->listed == 0) {
                /* not even one first move valued: the first in static order, by its score
                 * (exactly when it ends the game) */
                int64_t value;
                int next;
                if (R->count == 0) { /* only the pass */
                    value = S->pos.s + 1 >= S->pos.limit ? S->pos.stuck_loss * (S->pos.face[1] - S->pos.face[0]) : 0;
                } else if (!pos_placement_ends(&S->pos, P0, &P0->moves[0], 0, &value, &next)) {
                    value = P0->moves[0].score;
                }
                R->kept[0] = value;
                R->order[0] = 0;
                R->listed = 1;
            }
        } else if (S->stop && !S->fail_memory) {
            /* the moves the cut iteration searched exactly update the last finished one's */
            for (uint32_t i = 0; i <= R->count; i++) {
                if (R->exact[i]) {
                    R->kept[i] = R->value[i];
                    R->kept_ok[i] = 1;
                }
            }
            R->listed = rank_best(R, R->kept, R->kept_ok, R->order);
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
    if (!failed && R->listed > 0) {
        /* the first moves' records, before the variation reuses ply 0's list */
        root_moves = malloc(((size_t)R->count + 1) * sizeof(Record));
        if (root_moves == NULL) {
            failed = 1;
            S->fail_memory = 1;
        } else {
            if (R->count > 0) {
                memcpy(root_moves, P0->moves, R->count * sizeof(Record));
            }
            memset(&root_moves[R->count], 0, sizeof(Record));
            root_moves[R->count].kind = KIND_PASS;
            int stopped_before = S->stop;
            principal_variation(S, R, R->order[0], status == PROVEN, line);
            if (S->fail_memory || S->stop == STOP_ERROR) {
                failed = 1;
            } else if (!stopped_before && S->stop == STOP_TIME) {
                /* a proven value stands, its line cut (as the Python twin's) */
                status = status == PROVEN ? PROVEN : CUT_TIME;
            } else if (!stopped_before && S->stop == STOP_INTERRUPT) {
                status = status == PROVEN ? PROVEN_INTERRUPTED : INTERRUPTED;
            }
        }
    }
    *root_moves_out = root_moves;
    return status;
}

int endgame_decide(Search *S, int plies, int64_t threshold, int64_t *value, int *depth_done) {
    int status = CUT_PLIES, most = plies ? plies : MAX_DEPTH;
    *value = 0;
    S->tile_points = DECIDE_TILE_POINTS;
    list_pre(S); /* (out of memory stops the search) */
    for (int depth = 1; depth <= most && !S->stop; depth = next_depth(depth, most)) {
        S->depth_now = depth;
        int horizon = 0;
        /* integer values: the window (t - 1, t + 1) holds t alone */
        int64_t found = search(S, 0, depth, clamp(threshold - 1), clamp(threshold + 1), &horizon);
        if (S->stop) {
            break;
        }
        *value = found;
        *depth_done = depth;
        S->have_best = 0; /* (no first move to report: the progress callback gets the value) */
        S->best_value = found;
        visit_python(S, now_seconds(), 1);
        if (!horizon) {
            status = PROVEN;
            break;
        }
    }
    if (S->stop == STOP_TIME) {
        status = CUT_TIME;
    } else if (S->stop == STOP_INTERRUPT) {
        status = INTERRUPTED;
    }
    return status;
}
