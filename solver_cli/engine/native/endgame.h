/* The exact endgame search's shared header (issue #21; the contract is docs/endgame.md).
 *
 *   endgame_pos.c  the position: Zobrist keys, both racks, play and unplay on one square
 *                  array with the anchors and cross-checks kept up to date, the move lists
 *                  in static order, the end-of-game rules, the greedy playout
 *   endgame.c      the search: negamax, the transposition table, the root's K best, the
 *                  principal variation
 *   endgame_py.c   the Python entry point endgame(): argument checks, the GIL, signals and
 *                  the progress callback, the result
 *
 * The position API (first half of this file) knows nothing of the search or of Python: a
 * caller that plays moves on a board with two known racks (a simulation's rollouts, say)
 * may use it alone. Not thread-safe per Position; the Zobrist tables are shared, read-only
 * once endgame_init_zobrist() has run (call it with the GIL held, before any Position).
 */
#ifndef SCRAB_ENDGAME_H
#define SCRAB_ENDGAME_H

#include "scrab.h"

#define MAX_LIMIT 255 /* scoreless turns that end a game */
#define NO_MOVE UINT32_MAX

/* ---------------------------------------------------------------------------------------
 * The position.
 */

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

/* A board, both players' racks (player 0: the root's mover, 1 the opponent), whose turn it
 * is and the scoreless turns so far, with what the move generator needs kept up to date
 * (anchors, cross-checks) and the Zobrist key of each part. Filled by pos_init. */
typedef struct {
    Gen *gen; /* the generator's lexicon and layout set; its sink and rack are set per call */
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
    int me;    /* the player to move */
    int s;     /* scoreless turns in a row so far */
    int limit; /* scoreless turns that end the game */
    int64_t out_bonus, stuck_loss;
    uint32_t letters; /* the only letters the cross-checks try (see pos_init) */
    uint32_t touched[2]; /* the lines the play under way changed (see Ply.lines) */
    Sink best_sink; /* the playout's: the best move only */
    Record best_item;
} Position;

/* A ply: the moves of the position it was listed at, and what the move played from it put
 * on the board (for pos_unplay). One per depth, reused from node to node. */
typedef struct {
    Record *moves; /* in static order (pad[0]: tiles placed, pad[1]: the move goes out) */
    size_t count, cap;
    uint32_t outs;        /* the going-out placements, at the front */
    int placed[MAX_SIDE]; /* the squares the move being tried filled */
    int nplaced;
    size_t undo_mark; /* the undo log's length before the move */
    /* the lines whose moves that move may have changed, a bit per line: rows (the moves
     * across) [0] and columns (the moves down) [1]; the caller zeroes them for a pass */
    uint32_t lines[2];
    /* the order the search tries the placements that do not go out in (see order_moves) */
    uint32_t *order;
    size_t order_cap;
    /* the packed sort keys of static_sort and order_moves (twice keys_cap: the keys and
     * sort_keys' scratch), and the buffer a list is gathered into in static order (then
     * swapped with moves) */
    uint64_t *keys;
    size_t keys_cap;
    Record *spare;
    size_t spare_cap;
    /* the other side's placements of the list one ply up that its rack can play and that
     * place every tile it holds: its replies that go out (pos_collect_outs), each of the
     * two runs of that list in rank order; made at the first move tried, for all of them */
    const Record **outs_up;
    size_t outs_up_count, outs_up_cap, outs_up_split;
    int outs_up_ready;
} Ply;

SCRAB_INTERNAL void endgame_init_zobrist(void);

/* The position: `squares` (rows x cols codes), racks[p] (27 counts each), player 0 to move
 * after `scoreless` scoreless turns. G must have its lexicon and layout set. The
 * cross-checks are worked out for `letters` only (bits 1..26): the letters any rack will
 * hold while the position is played on, as the generator only tries those (all of them
 * when a rack may hold a blank). pos_rack_letters gives them for two racks that only shrink
 * (the endgame); pass ALL_LETTERS when racks draw tiles. */
SCRAB_INTERNAL void pos_init(Position *pos, Gen *G, const LayoutObject *layout, const uint8_t *squares,
                             const uint8_t *rack0, const uint8_t *rack1, uint32_t letters, int scoreless, int limit,
                             int64_t out_bonus, int64_t stuck_loss);
SCRAB_INTERNAL uint32_t pos_rack_letters(const uint8_t *rack0, const uint8_t *rack1);

/* The key of (board, the mover's rack, the other's rack, scoreless turns). */
SCRAB_INTERNAL uint64_t pos_key(const Position *pos);
/* pos_key of the position after placement r of the mover's list (its tiles from the
 * mover's rack), with `next` scoreless turns: found without playing r. */
SCRAB_INTERNAL uint64_t pos_key_after(const Position *pos, const Record *r, int next);

/* The square of the k-th letter of r's main word. */
static inline int pos_square_of(const Position *pos, const Record *r, int k) {
    int cols = pos->layout->cols;
    return r->down ? (r->start + k) * cols + r->line : r->line * cols + r->start + k;
}

/* Room for n packed sort keys (and as many of scratch) in P->keys: 0, or -1 out of memory. */
SCRAB_INTERNAL int ply_reserve_keys(Ply *P, size_t n);

/* Every placement for the side to move into P, in static order (going-out placements
 * first, then the others, each in rank order). 0, or -1 out of memory (P->count 0). */
SCRAB_INTERNAL int pos_list_moves(Position *pos, Ply *P);

/* The same list from `ref`, the list of an earlier position with the same player to move
 * and a rack that holds the present one (two plies up, say): its moves on the lines
 * changed[] does not name (rows [0], columns [1]: the union of the Ply.lines of the plays
 * made since) that the rack can still play, and the moves the generator finds on the
 * changed lines alone. Far cheaper than the whole board when the plays since were few. */
SCRAB_INTERNAL int pos_list_moves_since(Position *pos, Ply *P, const Ply *ref, const uint32_t changed[2]);

/* The placements of `ref` (a list of `player`'s, as for pos_list_moves_since) that player's
 * rack can play now and that place every tile it holds, into P->outs_up (0, or -1 out of
 * memory). P->outs_up_ready is then set. */
SCRAB_INTERNAL int pos_collect_outs(const Position *pos, int player, const Ply *ref, Ply *P);

/* The best value, at least `beta`, of a placement of P->outs_up on a line changed[] does not
 * name, each worth its score plus `bonus` (1, *value), else 0. */
SCRAB_INTERNAL int pos_kept_reply_out(const Ply *P, const uint32_t changed[2], int64_t bonus, int64_t beta,
                                      int64_t *value);

/* Every line placement r (not yet played) would change, as pos_play's Ply.lines names them
 * or more (rows [0], columns [1]), and the face value of the tiles it places. */
SCRAB_INTERNAL void pos_lines_of(const Position *pos, const Record *r, uint32_t lines[2], int64_t *placed_face);

/* Every placement for the side to move into `sink` (any order). */
SCRAB_INTERNAL void pos_generate(Position *pos, Sink *sink);

/* Put r's new tiles on the board from the mover's rack (P records them; the turn and the
 * scoreless count are the caller's), and take them back. Plays and unplays nest. */
SCRAB_INTERNAL void pos_play(Position *pos, const Record *r, Ply *P);
SCRAB_INTERNAL void pos_unplay(Position *pos, Ply *P);

/* Placement `index` of P, r, by the side to move: 1 and its *value (its score and the
 * end-of-game adjustments) when it ends the game, else 0 and the next scoreless count. */
SCRAB_INTERNAL int pos_placement_ends(const Position *pos, const Ply *P, const Record *r, uint32_t index,
                                      int64_t *value, int *next);

/* The greedy playout's value for the side to move: both sides in turn play their first
 * placement in rank order (the pass when there is none) to the end of the game, with the
 * same endings. The position is unchanged afterwards. */
SCRAB_INTERNAL int64_t pos_playout(Position *pos);
/* The same, each player's moves found from refs[player] (NULL: the whole board), an earlier
 * list of that player's, as pos_list_moves_since, since[player] the lines changed since. */
SCRAB_INTERNAL int64_t pos_playout_since(Position *pos, const Ply *const refs[2], const uint32_t since[2][2]);

/* ---------------------------------------------------------------------------------------
 * The search (endgame.c), driven by endgame_py.c.
 */
#define INF ((int64_t)INT64_MAX / 2)
#define MAX_DEPTH 1024 /* plies of recursion at most (a C stack of well under a megabyte) */
#define GIL_EVERY 0.1      /* seconds between two looks at the signals */
#define PROGRESS_EVERY 0.2 /* seconds between two progress calls */

/* PROVEN_INTERRUPTED: the value proven, Ctrl-C while its variation was followed (the line
 * is cut; the Python twin's "stays proven") */
enum { PROVEN = 0, CUT_PLIES = 1, CUT_TIME = 2, INTERRUPTED = 3, PROVEN_INTERRUPTED = 4 };
enum { GOING = 0, STOP_TIME, STOP_INTERRUPT, STOP_ERROR };

typedef struct Bucket Bucket;

typedef struct {
    Position pos;
    Bucket *table;
    size_t buckets, most_buckets; /* the table's size now, and at most */
    size_t filled;                /* its entries in use */
    Ply *ply; /* MAX_DEPTH + 2 of them */
    /* the other side's moves at the root, as if it were to move there: the list "two plies
     * up" of the nodes one ply down (pre_ready: made for the root position of now) */
    Ply pre;
    int pre_ready;
    uint64_t nodes;
    int64_t tile_points; /* the move order's points a tile placed (endgame.c) */
    /* control */
    int stop;
    int fail_memory;
    double started, deadline, last_gil, last_progress;
    PyThreadState *thread;
    PyObject *progress;
    int depth_now; /* the iteration under way */
    int have_best; /* best_record/best_value hold the best root move so far */
    int64_t best_value;
    Record best_record;
} Search;

/* The root's first moves and their values. */
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

/* A principal variation. */
typedef struct {
    Record *items;
    size_t count, cap;
} Line;

/* The table for at most tt_mb MB, or NULL (out of memory): *buckets its size now (it starts
 * at TABLE_START_MB, or a sixteenth of tt_mb, and grows as the search fills it), *most its
 * size at most. */
#define TABLE_START_MB 4
SCRAB_INTERNAL Bucket *table_new(long long tt_mb, size_t *buckets, size_t *most);

/* The whole search, the GIL released (S->thread) and S->pos set: the K best first moves
 * into R (ply 0's list holding the first moves, R's arrays allocated by it), the variation
 * into line. Returns the status (PROVEN, CUT_*, INTERRUPTED, PROVEN_INTERRUPTED); *depth_done the last
 * iteration finished; S->fail_memory or S->stop == STOP_ERROR when it failed. */
SCRAB_INTERNAL int endgame_run(Search *S, Root *R, int plies, int top, Line *line, int *depth_done,
                               Record **root_moves);

/* The same search asked only where the value lies against `threshold` (Macondo's "first
 * win", for the pre-endgame: a null window, which settles a lopsided position at once):
 * *value gets a fail-soft bound, below threshold (the value is at most it), above (at
 * least it), or threshold itself (exact). Iterations as endgame_run's, until one rests on
 * no depth limit; the status and *depth_done as endgame_run's. */
SCRAB_INTERNAL int endgame_decide(Search *S, int plies, int64_t threshold, int64_t *value, int *depth_done);

/* endgame_py.c: with the GIL released, take it, run the signal handlers and (every
 * PROGRESS_EVERY or when forced) the progress callback; S->stop says what happened. */
SCRAB_INTERNAL double now_seconds(void);
SCRAB_INTERNAL void visit_python(Search *S, double now, int force_progress);

#endif /* SCRAB_ENDGAME_H */
