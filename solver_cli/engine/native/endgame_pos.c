/* The endgame's position (endgame.h says what each function does): one square array played
 * on and unplayed (no board copies), both racks, and the anchors and cross-checks the move
 * generator needs, kept up to date as tiles come and go (an undo log puts them back), so a
 * node's moves cost only the walk of movegen.c's generator, not a fresh look at the board.
 */
#include "endgame.h"

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

void endgame_init_zobrist(void) { /* with the GIL held */
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

uint64_t pos_key(const Position *pos) {
    return pos->board_key ^ pos->rack_key[pos->me][0] ^ pos->rack_key[pos->me ^ 1][1] ^ Z_SCORELESS[pos->s];
}

uint64_t pos_key_after(const Position *pos, const Record *r, int next) {
    int me = pos->me;
    uint64_t board = pos->board_key, rack = pos->rack_key[me][1];
    uint8_t left[RACK_CODES];
    memcpy(left, pos->rack[me], RACK_CODES);
    for (int k = 0; k < r->length; k++) {
        int i = pos_square_of(pos, r, k);
        if (pos->sq[i]) {
            continue;
        }
        uint8_t code = r->codes[k];
        int tile = (code & BLANK_BIT) ? 0 : code;
        uint8_t n = left[tile];
        if (n == 0) {
            return 0; /* (not the mover's tiles: no position; never for a listed move) */
        }
        board ^= Z_SQUARE[i][code];
        rack ^= Z_RACK[1][tile][n] ^ Z_RACK[1][tile][n - 1];
        left[tile] = (uint8_t)(n - 1);
    }
    /* as pos_key after the play: the other side to move, the mover's rack in the second role */
    return board ^ pos->rack_key[me ^ 1][0] ^ rack ^ Z_SCORELESS[next];
}

static void rack_take(Position *pos, int player, int code, int64_t value) {
    uint8_t n = pos->rack[player][code];
    pos->rack_key[player][0] ^= Z_RACK[0][code][n] ^ Z_RACK[0][code][n - 1];
    pos->rack_key[player][1] ^= Z_RACK[1][code][n] ^ Z_RACK[1][code][n - 1];
    pos->rack[player][code] = (uint8_t)(n - 1);
    pos->tiles[player]--;
    pos->face[player] -= value;
}

static void rack_give(Position *pos, int player, int code, int64_t value) {
    uint8_t n = pos->rack[player][code];
    pos->rack_key[player][0] ^= Z_RACK[0][code][n] ^ Z_RACK[0][code][n + 1];
    pos->rack_key[player][1] ^= Z_RACK[1][code][n] ^ Z_RACK[1][code][n + 1];
    pos->rack[player][code] = (uint8_t)(n + 1);
    pos->tiles[player]++;
    pos->face[player] += value;
}

/* The lines whose moves a change at square i may alter: for the cross-checks of moves
 * across [0] its row, of moves down [1] its column; for its anchor or tile, both. */
static void touch(Position *pos, int down, int i) {
    int cols = pos->layout->cols;
    pos->touched[down] |= (uint32_t)1 << (down ? i % cols : i / cols);
}

static void log_cross(Position *pos, int down, int i) {
    Undo *u = &pos->undo[pos->undo_count++];
    u->what = (uint8_t)down;
    u->index = (uint16_t)i;
    u->mask = pos->masks[down][i];
    u->score = pos->scores[down][i];
}

static void set_anchor(Position *pos, int i, uint8_t value) {
    if (pos->anchor[i] != value) {
        touch(pos, 0, i);
        touch(pos, 1, i);
        Undo *u = &pos->undo[pos->undo_count++];
        u->what = UNDO_ANCHOR;
        u->index = (uint16_t)i;
        u->mask = pos->anchor[i];
        pos->anchor[i] = value;
    }
}

/* For moves running `down` (else across): the letters of pos->letters the perpendicular word
 * allows on empty square i, and that word's face value without the new tile (-1: no
 * perpendicular neighbour, every letter allowed; an occupied square: every letter, -1).
 * movegen.c's, trying only the letters the racks hold: the generator
 * intersects every cross-check with the rack (all letters with a blank), so the others
 * never matter, and most of the cost is the walk of each letter's tail. */
static void cross_check(const Position *pos, int down, int i, uint32_t *mask_out, int64_t *score_out) {
    cross_check_square(pos->gen, pos->sq, down, i, pos->letters, mask_out, score_out);
}

/* The cross-check of (down, i) again, logged, unless this play already did it. */
static void recheck(Position *pos, int down, int i, int *done, int *ndone) {
    int key = down * MAX_SQUARES + i;
    for (int k = 0; k < *ndone; k++) {
        if (done[k] == key) {
            return;
        }
    }
    done[(*ndone)++] = key;
    log_cross(pos, down, i);
    uint32_t mask = pos->masks[down][i];
    int64_t score = pos->scores[down][i];
    cross_check(pos, down, i, &pos->masks[down][i], &pos->scores[down][i]);
    if (mask != pos->masks[down][i] || score != pos->scores[down][i]) {
        touch(pos, down, i); /* (the racks' letters may fit there as before) */
    }
}

/* After tiles were put on `placed`: the anchors and cross-checks they change, logged. The
 * tiles of one play often share the ends of their runs (a word's two ends, across it). */
static void refresh_around(Position *pos, const int *placed, int n) {
    const LayoutObject *L = pos->layout;
    int rows = L->rows, cols = L->cols;
    int done[4 * MAX_SIDE], ndone = 0;
    for (int k = 0; k < n; k++) {
        int i = placed[k], r = i / cols, c = i % cols;
        for (int down = 0; down < 2; down++) {
            /* moves across see the column's word through a square; moves down the row's */
            int step = down ? 1 : cols, along = down ? c : r, limit = down ? cols : rows;
            log_cross(pos, down, i);
            touch(pos, down, i);
            pos->masks[down][i] = ALL_LETTERS;
            pos->scores[down][i] = -1;
            int p = along - 1, j = i - step;
            while (p >= 0 && pos->sq[j]) {
                p--, j -= step;
            }
            if (p >= 0) {
                recheck(pos, down, j, done, &ndone);
            }
            p = along + 1, j = i + step;
            while (p < limit && pos->sq[j]) {
                p++, j += step;
            }
            if (p < limit) {
                recheck(pos, down, j, done, &ndone);
            }
        }
        set_anchor(pos, i, 0);
        if (c > 0 && !pos->sq[i - 1]) {
            set_anchor(pos, i - 1, 1);
        }
        if (c + 1 < cols && !pos->sq[i + 1]) {
            set_anchor(pos, i + 1, 1);
        }
        if (r > 0 && !pos->sq[i - cols]) {
            set_anchor(pos, i - cols, 1);
        }
        if (r + 1 < rows && !pos->sq[i + cols]) {
            set_anchor(pos, i + cols, 1);
        }
    }
}

static void undo_to(Position *pos, size_t mark) {
    while (pos->undo_count > mark) {
        const Undo *u = &pos->undo[--pos->undo_count];
        if (u->what == UNDO_ANCHOR) {
            pos->anchor[u->index] = (uint8_t)u->mask;
        } else {
            pos->masks[u->what][u->index] = u->mask;
            pos->scores[u->what][u->index] = u->score;
        }
    }
}

/* Every anchor and cross-check from scratch (as generate_all finds them). */
static void refresh_all(Position *pos) {
    const LayoutObject *L = pos->layout;
    int rows = L->rows, cols = L->cols, n = rows * cols, empty = 1;
    for (int i = 0; i < n; i++) {
        int r = i / cols, c = i % cols;
        empty &= !pos->sq[i];
        pos->anchor[i] = !pos->sq[i] && ((c > 0 && pos->sq[i - 1]) || (c + 1 < cols && pos->sq[i + 1]) ||
                                     (r > 0 && pos->sq[i - cols]) || (r + 1 < rows && pos->sq[i + cols]));
        for (int down = 0; down < 2; down++) {
            cross_check(pos, down, i, &pos->masks[down][i], &pos->scores[down][i]);
        }
    }
    if (empty) {
        pos->anchor[L->centre] = 1;
    }
    pos->undo_count = 0;
}

/* Put the move's new tiles on the board, from the mover's rack (the squares go to *P). */
void pos_lines_of(const Position *pos, const Record *r, uint32_t lines[2], int64_t *placed_face) {
    const LayoutObject *L = pos->layout;
    int rows = L->rows, cols = L->cols, down = r->down;
    int main_limit = down ? rows : cols, cross_limit = down ? cols : rows;
    uint32_t main = 0, cross = 0; /* lines along r (r->line's kind) and across it */
    int64_t face = 0;
    main |= (uint32_t)1 << r->line; /* its own line */
    if (r->line > 0) {
        main |= (uint32_t)1 << (r->line - 1);
    }
    if (r->line + 1 < cross_limit) {
        main |= (uint32_t)1 << (r->line + 1);
    }
    if (r->start > 0) {
        cross |= (uint32_t)1 << (r->start - 1);
    }
    if (r->start + r->length < main_limit) {
        cross |= (uint32_t)1 << (r->start + r->length);
    }
    int step = down ? 1 : cols; /* across r, from one of its squares */
    for (int k = 0; k < r->length; k++) {
        int i = pos_square_of(pos, r, k);
        if (pos->sq[i]) {
            continue;
        }
        uint8_t code = r->codes[k];
        if (!(code & BLANK_BIT)) {
            face += L->values[code];
        }
        int along = r->start + k;
        cross |= (uint32_t)7 << along >> 1; /* its line across and both neighbours */
        /* the ends of the run across r through it, tiles on the board only */
        int p = r->line - 1, j = i - step;
        while (p >= 0 && pos->sq[j]) {
            p--, j -= step;
        }
        if (p >= 0) {
            main |= (uint32_t)1 << p;
        }
        p = r->line + 1, j = i + step;
        while (p < cross_limit && pos->sq[j]) {
            p++, j += step;
        }
        if (p < cross_limit) {
            main |= (uint32_t)1 << p;
        }
    }
    uint32_t keep_main = cross_limit >= 32 ? ~(uint32_t)0 : ((uint32_t)1 << cross_limit) - 1;
    uint32_t keep_cross = main_limit >= 32 ? ~(uint32_t)0 : ((uint32_t)1 << main_limit) - 1;
    lines[down] = main & keep_main;
    lines[down ^ 1] = cross & keep_cross;
    *placed_face = face;
}

void pos_play(Position *pos, const Record *r, Ply *P) {
#ifdef ENDGAME_CHECK_INCREMENTAL
    uint32_t bound[2];
    int64_t placed_face, face_before = pos->face[pos->me];
    pos_lines_of(pos, r, bound, &placed_face);
#endif
    pos->touched[0] = pos->touched[1] = 0;
    P->nplaced = 0;
    P->undo_mark = pos->undo_count;
    for (int k = 0; k < r->length; k++) {
        int i = pos_square_of(pos, r, k);
        if (pos->sq[i]) {
            continue;
        }
        uint8_t code = r->codes[k];
        pos->sq[i] = code;
        pos->board_key ^= Z_SQUARE[i][code];
        P->placed[P->nplaced++] = i;
        int tile = (code & BLANK_BIT) ? 0 : code;
        rack_take(pos, pos->me, tile, pos->layout->values[tile]);
    }
    refresh_around(pos, P->placed, P->nplaced);
    P->lines[0] = pos->touched[0];
    P->lines[1] = pos->touched[1];
#ifdef ENDGAME_CHECK_INCREMENTAL
    /* pos_lines_of must name every line a play changes, and the face it places */
    if ((P->lines[0] & ~bound[0]) || (P->lines[1] & ~bound[1]) || face_before - pos->face[pos->me] != placed_face) {
        abort();
    }
#endif
    /* Their set-ups are no longer what the generator keeps. The kept set-ups stay right only
     * while every change to sq, anchor, masks and scores goes through pos_play, pos_unplay (in
     * the reverse order, with P->lines as the play left them) or the playout, which clear them. */
    pos->gen->cached[0] &= ~P->lines[0];
    pos->gen->cached[1] &= ~P->lines[1];
}

void pos_unplay(Position *pos, Ply *P) {
    undo_to(pos, P->undo_mark);
    pos->gen->cached[0] &= ~P->lines[0];
    pos->gen->cached[1] &= ~P->lines[1];
    for (int k = P->nplaced - 1; k >= 0; k--) {
        int i = P->placed[k];
        uint8_t code = pos->sq[i];
        pos->sq[i] = 0;
        pos->board_key ^= Z_SQUARE[i][code];
        int tile = (code & BLANK_BIT) ? 0 : code;
        rack_give(pos, pos->me, tile, pos->layout->values[tile]);
    }
    P->nplaced = 0;
}

/* Every move for the side to move into the sink, from the anchors and cross-checks kept. */
static void generate_here(Position *pos) {
    const uint32_t *masks[2] = {pos->masks[0], pos->masks[1]};
    const int64_t *scores[2] = {pos->scores[0], pos->scores[1]};
#ifdef ENDGAME_CHECK_INCREMENTAL
    Position *copy = malloc(sizeof *copy);
    memcpy(copy, pos, sizeof *copy);
    refresh_all(copy);
    if (memcmp(copy->anchor, pos->anchor, sizeof pos->anchor) || memcmp(copy->masks, pos->masks, sizeof pos->masks) ||
        memcmp(copy->scores, pos->scores, sizeof pos->scores)) {
        abort();
    }
    free(copy);
#endif
    generate_prepared(pos->gen, pos->sq, pos->anchor, masks, scores);
}

static void prepare_gen(Position *pos, Sink *sink) {
    Gen *G = pos->gen;
    G->sink = sink;
    memcpy(G->rack, pos->rack[pos->me], RACK_CODES);
    G->bits = 0;
    for (int code = 1; code < RACK_CODES; code++) {
        if (G->rack[code]) {
            G->bits |= (uint32_t)1 << code;
        }
    }
}

/* The one-tile fast path (as MAGPIE's): a rack of one tile can only put it alone on an
 * anchor, and that placement is wholly given by the square's two cross-checks and their
 * faces, which the position keeps: no walk of the word graph. On the hardest bench
 * endgames seven listings in ten are of a one-tile rack. For the endgame's own generator
 * only (no leaves, no mirror, no cap: its records' leave is 0). */
static int one_tile_rack(const Position *pos) {
    const Gen *G = pos->gen;
    return pos->tiles[pos->me] == 1 && G->leaves == NULL && !G->mirror && !G->capped;
}

/* The one tile's placements into `sink`: the records movegen.c makes, each once (a lone
 * tile with a neighbour across is its generator's move across, else its move down), in
 * any order (the callers sort). The squares' checks were made for pos->letters, which
 * holds every letter the racks hold (all of them with a blank). */
static void one_tile_moves(const Position *pos, Sink *sink) {
    const LayoutObject *L = pos->layout;
    int rows = L->rows, cols = L->cols;
    const uint8_t *rack = pos->rack[pos->me];
    int tile = 0;
    while (tile < RACK_CODES && !rack[tile]) {
        tile++;
    }
    uint32_t letters = tile == 0 ? ALL_LETTERS : (uint32_t)1 << tile;
    int64_t bonus = L->rack_size == 1 ? L->bingo : 0;
    for (int i = 0; i < rows * cols; i++) {
        if (!pos->anchor[i]) {
            continue;
        }
        /* the faces of the words across and down through i without the tile (-1: none) */
        int64_t across = pos->scores[1][i], down_face = pos->scores[0][i];
        uint32_t fits = letters & pos->masks[0][i] & pos->masks[1][i];
        if ((across < 0 && down_face < 0) || !fits) {
            continue; /* (the empty board's centre: a lone tile makes no word) */
        }
        Record r;
        memset(&r, 0, sizeof r);
        r.kind = KIND_PLACE;
        r.down = across < 0;
        int row = i / cols, col = i % cols;
        int step = r.down ? cols : 1, along = r.down ? row : col;
        int first = along, last = along, j = i;
        while (first > 0 && pos->sq[j - step]) {
            first--, j -= step;
        }
        j = i;
        while (last + 1 < (r.down ? rows : cols) && pos->sq[j + step]) {
            last++, j += step;
        }
        r.line = (uint8_t)(r.down ? col : row);
        r.start = (uint8_t)first;
        r.length = (uint8_t)(last - first + 1);
        uint8_t board_blanks = 0;
        for (int p = first; p <= last; p++) {
            uint8_t code = p == along ? 0 : pos->sq[r.down ? p * cols + col : row * cols + p];
            r.codes[p - first] = code;
            board_blanks += (code & BLANK_BIT) != 0;
        }
        int64_t lm = L->lm[i], wm = L->wm[i];
        while (fits) {
            int code = highest_bit(fits);
            fits ^= (uint32_t)1 << code;
            int64_t value = tile == 0 ? 0 : L->values[code] * lm;
            r.score = (across >= 0 ? (across + value) * wm : 0) + (down_face >= 0 ? (down_face + value) * wm : 0);
            r.score += bonus;
            r.codes[along - first] = (uint8_t)(tile == 0 ? code | BLANK_BIT : code);
            r.blanks = (uint8_t)(board_blanks + (tile == 0));
            sink_add(sink, &r);
        }
    }
}

#ifdef ENDGAME_CHECK_INCREMENTAL
/* The check build's: the fast path's moves are the generator's, all of them or the best
 * (a sink that keeps one), else abort. */
static void check_one_tile(Position *pos, Sink *fast) {
    Sink full = {0};
    prepare_gen(pos, &full);
    generate_here(pos);
    size_t n = fast->count;
    Record *mine = malloc((n ? n : 1) * sizeof(Record));
    if (mine == NULL || full.failed) {
        abort();
    }
    memcpy(mine, fast->items, n * sizeof(Record));
    qsort(mine, n, sizeof(Record), rank_qsort);
    qsort(full.items, full.count, sizeof(Record), rank_qsort);
    size_t expected = fast->keep && full.count > (size_t)fast->keep ? (size_t)fast->keep : full.count;
    if (n != expected || (n && memcmp(mine, full.items, n * sizeof(Record)) != 0)) {
        abort();
    }
    free(mine);
    free(full.items);
    pos->gen->sink = fast;
}
#endif

void pos_generate(Position *pos, Sink *sink) {
    prepare_gen(pos, sink);
    generate_here(pos);
}

/* Static order: the going-out placements first, then the others, each in rank order. */
static int static_cmp(const void *a, const void *b) {
    const Record *x = (const Record *)a, *y = (const Record *)b;
    if (x->pad[1] != y->pad[1]) {
        return x->pad[1] ? -1 : 1;
    }
    return rank_cmp(x, y);
}

int ply_reserve_keys(Ply *P, size_t n) {
    if (n > P->keys_cap) {
        uint64_t *keys = realloc(P->keys, 2 * n * sizeof *keys);
        if (keys == NULL) {
            return -1;
        }
        P->keys = keys;
        P->keys_cap = n;
    }
    return 0;
}

/* static_sort's packed key: going out, score (high first), blanks, kind, direction, line,
 * start and the first code above the move's index, so that a smaller key comes earlier in
 * static order, or ties with the one before it on all but the rest of the codes. */
#define KEY_SCORE_BITS 16
#define KEY_SCORE_MAX (((int64_t)1 << KEY_SCORE_BITS) - 1)
#define KEY_BLANKS_MAX 7

static uint64_t static_key(const Record *r, size_t index) {
    uint64_t key = r->pad[1] ? 0 : 1;
    key = key << KEY_SCORE_BITS | (uint64_t)(KEY_SCORE_MAX - r->score);
    key = key << 3 | r->blanks;
    key = key << 2 | r->kind;
    key = key << 1 | r->down;
    key = key << 5 | r->line;
    key = key << 5 | r->start;
    key = key << 6 | (r->length ? r->codes[0] : 0);
    return key << SORT_INDEX_BITS | index;
}
_Static_assert(MAX_SIDE <= 32, "line and start take 5 bits of static_key");
_Static_assert(BLANK_BIT + 26 < 64, "a code takes 6 bits of static_key");
_Static_assert(1 + KEY_SCORE_BITS + 3 + 2 + 1 + 5 + 5 + 6 + SORT_INDEX_BITS <= 64, "static_key fits 64 bits");

/* P's moves into static order: 0, or -1 out of memory. Listing is most of an endgame
 * search's time, and qsort moving 48-byte records with static_cmp was a third of it (bench
 * endgame 22: radix-sorting packed keys and moving each record once cut the whole search's
 * instructions by a fifth). Moves whose keys tie (the same square, direction, score, blanks
 * and first letter) are put in order by static_cmp after. A list whose scores or blanks
 * the key cannot hold (never in a real endgame) is sorted with static_cmp alone. */
static int static_sort(Ply *P) {
    size_t n = P->count;
    if (ply_reserve_keys(P, n) < 0) {
        return -1;
    }
    if (n > P->spare_cap) {
        Record *spare = realloc(P->spare, n * sizeof *spare);
        if (spare == NULL) {
            return -1;
        }
        P->spare = spare;
        P->spare_cap = n;
    }
    uint64_t *keys = P->keys;
    for (size_t m = 0; m < n; m++) {
        const Record *r = &P->moves[m];
        if (r->score < 0 || r->score > KEY_SCORE_MAX || r->leave != 0 || r->kind > 3 || r->blanks > KEY_BLANKS_MAX) {
            qsort(P->moves, n, sizeof(Record), static_cmp);
            return 0;
        }
        keys[m] = static_key(r, m);
    }
    sort_keys(keys, keys + n, n);
    Record *out = P->spare;
    size_t run = 0; /* the first move of the run whose keys tie above the index */
    for (size_t m = 0; m < n; m++) {
        out[m] = P->moves[keys[m] & SORT_INDEX_MASK];
        if (m > 0 && (keys[m] >> SORT_INDEX_BITS) != (keys[m - 1] >> SORT_INDEX_BITS)) {
            run = m;
        }
        /* insertion into the run: ties are few and short */
        for (size_t k = m; k > run && static_cmp(&out[k - 1], &out[k]) > 0; k--) {
            Record swap = out[k - 1];
            out[k - 1] = out[k];
            out[k] = swap;
        }
    }
#ifdef ENDGAME_CHECK_INCREMENTAL
    for (size_t m = 1; m < n; m++) {
        if (static_cmp(&out[m - 1], &out[m]) >= 0) {
            abort();
        }
    }
#endif
    P->spare = P->moves;
    P->moves = out;
    size_t cap = P->spare_cap;
    P->spare_cap = P->cap;
    P->cap = cap;
    return 0;
}

/* Whether the side to move can still play r, a move of an earlier list of its own, on a
 * line that has not changed since (so its squares empty then are empty now, and r->pad[0],
 * the tiles it places, is still right: more than the rack holds is the quick no). */
static int playable_by(const Position *pos, int player, const Record *r) {
    if (r->pad[0] > pos->tiles[player]) {
        return 0;
    }
    uint8_t left[RACK_CODES];
    memcpy(left, pos->rack[player], RACK_CODES);
    int cols = pos->layout->cols, step = r->down ? cols : 1;
    int i = r->down ? r->start * cols + r->line : r->line * cols + r->start;
    for (int k = 0; k < r->length; k++, i += step) {
        if (!pos->sq[i]) {
            uint8_t code = r->codes[k];
            int tile = (code & BLANK_BIT) ? 0 : code;
            if (left[tile]-- == 0) {
                return 0;
            }
        }
    }
    return 1;
}

static int playable(const Position *pos, const Record *r) { return playable_by(pos, pos->me, r); }

static int unchanged(const Record *r, const uint32_t changed[2]) { return !((changed[r->down] >> r->line) & 1); }

/* The moves of `ref`'s list (the same player's, with a rack holding the present one) that
 * stay as they were: on a line no play since changed, and playable with the rack. */
static void add_unchanged(Position *pos, Sink *sink, const Ply *ref, const uint32_t changed[2]) {
    size_t need = sink->count + ref->count;
    if (need > sink->cap) {
        Record *items = need <= MAX_RECORDS ? realloc(sink->items, need * sizeof(Record)) : NULL;
        if (items == NULL) {
            sink->failed = 1;
            return;
        }
        sink->items = items;
        sink->cap = need;
    }
    for (size_t m = 0; m < ref->count; m++) {
        const Record *r = &ref->moves[m];
        if (unchanged(r, changed) && playable(pos, r)) {
            sink->items[sink->count++] = *r;
        }
    }
}

/* The first of ref's moves from..to (a run in rank order) that stays as it was, or NULL. */
static const Record *first_unchanged(const Position *pos, const Ply *ref, size_t from, size_t to,
                                     const uint32_t changed[2]) {
    for (size_t m = from; m < to; m++) {
        const Record *r = &ref->moves[m];
        if (unchanged(r, changed) && playable(pos, r)) {
            return r;
        }
    }
    return NULL;
}

/* Only the moves on the lines in changed[] (rows [0] for moves across, columns [1] for
 * moves down): the generator walks only their anchors. A line's moves depend only on its
 * own squares' tiles, anchors and cross-checks, so it finds the same moves there. */
static void generate_lines(Position *pos, const uint32_t changed[2]) {
    const uint32_t *masks[2] = {pos->masks[0], pos->masks[1]};
    const int64_t *scores[2] = {pos->scores[0], pos->scores[1]};
    generate_prepared_lines(pos->gen, pos->sq, pos->anchor, changed, masks, scores);
}

/* The side to move's first placement in rank order into pos->best_sink (count 0: none),
 * from ref's list when there is one (as pos_list_moves_since). */
static void best_move(Position *pos, const Ply *ref, const uint32_t changed[2]) {
    Sink *sink = &pos->best_sink;
    sink->count = 0;
    sink->total = 0;
    prepare_gen(pos, sink);
    if (one_tile_rack(pos)) {
        one_tile_moves(pos, sink);
#ifdef ENDGAME_CHECK_INCREMENTAL
        check_one_tile(pos, sink);
#endif
        return;
    }
    if (ref == NULL) {
        generate_here(pos);
        return;
    }
    generate_lines(pos, changed);
    /* ref's list is two runs in rank order: its going-out placements, then the others */
    const Record *firsts[2] = {first_unchanged(pos, ref, 0, ref->outs, changed),
                               first_unchanged(pos, ref, ref->outs, ref->count, changed)};
    for (int k = 0; k < 2; k++) {
        if (firsts[k] != NULL && (sink->count == 0 || rank_cmp(firsts[k], sink->items) < 0)) {
            *sink->items = *firsts[k];
            sink->count = 1;
        }
    }
#ifdef ENDGAME_CHECK_INCREMENTAL
    Record found = *sink->items;
    size_t count = sink->count;
    sink->count = 0;
    generate_here(pos);
    if (count != sink->count || (count && rank_cmp(&found, sink->items) != 0)) {
        abort();
    }
#endif
}

int pos_collect_outs(const Position *pos, int player, const Ply *ref, Ply *P) {
    int held = pos->tiles[player];
    P->outs_up_count = 0;
    size_t runs[3] = {0, ref->outs, ref->count};
    for (int k = 0; k < 2; k++) {
        if (k == 1) {
            P->outs_up_split = P->outs_up_count;
        }
        for (size_t m = runs[k]; m < runs[k + 1]; m++) {
            const Record *r = &ref->moves[m];
            if (r->pad[0] != held || !playable_by(pos, player, r)) {
                continue;
            }
            if (P->outs_up_count == P->outs_up_cap) {
                size_t cap = P->outs_up_cap ? 2 * P->outs_up_cap : 64;
                const Record **grown = realloc((void *)P->outs_up, cap * sizeof *grown);
                if (grown == NULL) {
                    return -1;
                }
                P->outs_up = grown;
                P->outs_up_cap = cap;
            }
            P->outs_up[P->outs_up_count++] = r;
        }
    }
    P->outs_up_ready = 1;
    return 0;
}

int pos_kept_reply_out(const Ply *P, const uint32_t changed[2], int64_t bonus, int64_t beta, int64_t *value) {
    size_t runs[3] = {0, P->outs_up_split, P->outs_up_count};
    for (int k = 0; k < 2; k++) {
        for (size_t m = runs[k]; m < runs[k + 1]; m++) {
            const Record *r = P->outs_up[m];
            if (r->score + bonus < beta) {
                break; /* (each run is in score order) */
            }
            if (unchanged(r, changed)) {
                *value = r->score + bonus;
                return 1;
            }
        }
    }
    return 0;
}

int pos_list_moves(Position *pos, Ply *P) { return pos_list_moves_since(pos, P, NULL, NULL); }

int pos_list_moves_since(Position *pos, Ply *P, const Ply *ref, const uint32_t changed[2]) {
    Sink sink = {0};
    sink.items = P->moves;
    sink.cap = P->cap;
    prepare_gen(pos, &sink);
    if (one_tile_rack(pos)) {
        one_tile_moves(pos, &sink);
#ifdef ENDGAME_CHECK_INCREMENTAL
        check_one_tile(pos, &sink);
#endif
    } else if (ref == NULL) {
        generate_here(pos);
    } else {
        generate_lines(pos, changed);
        if (!sink.failed) {
            add_unchanged(pos, &sink, ref, changed);
        }
    }
    P->moves = sink.items;
    P->cap = sink.cap;
    P->count = sink.count;
    P->outs = 0;
    if (sink.failed) {
        P->count = 0;
        return -1;
    }
    int held = pos->tiles[pos->me];
    for (size_t m = 0; m < P->count; m++) {
        Record *r = &P->moves[m];
        int placed = 0;
        for (int k = 0; k < r->length; k++) {
            placed += pos->sq[pos_square_of(pos, r, k)] == 0;
        }
        r->pad[0] = (uint8_t)placed;
        r->pad[1] = placed == held;
        P->outs += placed == held;
    }
    if (P->count > 1 && static_sort(P) < 0) {
        P->count = 0;
        return -1;
    }
#ifdef ENDGAME_CHECK_INCREMENTAL
    if (ref != NULL) { /* the same list as from the whole board */
        Ply full = {0};
        if (pos_list_moves(pos, &full) == 0) {
            if (full.count != P->count || full.outs != P->outs ||
                memcmp(full.moves, P->moves, P->count * sizeof(Record)) != 0) {
                abort();
            }
        }
        free(full.moves);
        free(full.keys);
        free(full.spare);
    }
#endif
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * The greedy playout that values a position at the depth limit: both sides in turn play
 * their first placement in rank order (the pass when there is none), with the same endings.
 */
int64_t pos_playout(Position *pos) { return pos_playout_since(pos, NULL, NULL); }

int64_t pos_playout_since(Position *pos, const Ply *const refs[2], const uint32_t since[2][2]) {
    const Ply *ref[2] = {refs ? refs[0] : NULL, refs ? refs[1] : NULL};
    uint32_t changed[2][2] = {{0, 0}, {0, 0}};
    if (since != NULL) {
        memcpy(changed, since, sizeof changed);
    }
    uint8_t racks[2][RACK_CODES];
    int tiles[2];
    int64_t face[2];
    uint64_t board_key = pos->board_key, rack_key[2][2];
    memcpy(racks, pos->rack, sizeof racks);
    memcpy(tiles, pos->tiles, sizeof tiles);
    memcpy(face, pos->face, sizeof face);
    memcpy(rack_key, pos->rack_key, sizeof rack_key);
    int me = pos->me, s = pos->s;
    size_t mark = pos->undo_count;
    int placed[2 * MAX_RACK];
    int nplaced = 0;
    int64_t total = 0, sign = 1;
    uint32_t dirty[2] = {0, 0}; /* the lines the playout changed */
    Ply scratch;
    for (;;) {
        best_move(pos, ref[pos->me], changed[pos->me]);
        int64_t opponent_face = pos->face[pos->me ^ 1];
        if (pos->best_sink.count == 0) {
            if (pos->s + 1 >= pos->limit) {
                total += sign * (pos->stuck_loss * (opponent_face - pos->face[pos->me]));
                break;
            }
            pos->s++;
        } else {
            const Record *r = &pos->best_sink.items[0];
            pos_play(pos, r, &scratch);
            for (int k = 0; k < scratch.nplaced; k++) {
                placed[nplaced++] = scratch.placed[k];
            }
            for (int p = 0; p < 2; p++) {
                changed[p][0] |= scratch.lines[0];
                changed[p][1] |= scratch.lines[1];
            }
            dirty[0] |= scratch.lines[0];
            dirty[1] |= scratch.lines[1];
            if (pos->tiles[pos->me] == 0) {
                total += sign * (r->score + pos->out_bonus * opponent_face);
                break;
            }
            int next = r->score ? 0 : pos->s + 1;
            if (next >= pos->limit) {
                total += sign * (r->score + pos->stuck_loss * (opponent_face - pos->face[pos->me]));
                break;
            }
            total += sign * r->score;
            pos->s = next;
        }
        pos->me ^= 1;
        sign = -sign;
    }
    undo_to(pos, mark);
    for (int k = 0; k < nplaced; k++) {
        pos->sq[placed[k]] = 0;
    }
    pos->gen->cached[0] &= ~dirty[0];
    pos->gen->cached[1] &= ~dirty[1];
    memcpy(pos->rack, racks, sizeof racks);
    memcpy(pos->tiles, tiles, sizeof tiles);
    memcpy(pos->face, face, sizeof face);
    memcpy(pos->rack_key, rack_key, sizeof rack_key);
    pos->board_key = board_key;
    pos->me = me;
    pos->s = s;
    return total;
}

/* The value of placement r when it ends the game (1), else 0 and the next scoreless count. */
int pos_placement_ends(const Position *pos, const Ply *P, const Record *r, uint32_t index, int64_t *value, int *next) {
    int64_t opponent_face = pos->face[pos->me ^ 1];
    if (index < P->outs) {
        *value = r->score + pos->out_bonus * opponent_face;
        return 1;
    }
    *next = r->score ? 0 : pos->s + 1;
    if (*next >= pos->limit) {
        /* the face of the rack left: the rack's minus the tiles placed */
        int64_t left = pos->face[pos->me];
        for (int k = 0; k < r->length; k++) {
            uint8_t code = r->codes[k];
            if (!pos->sq[pos_square_of(pos, r, k)] && !(code & BLANK_BIT)) {
                left -= pos->layout->values[code];
            }
        }
        *value = r->score + pos->stuck_loss * (opponent_face - left);
        return 1;
    }
    return 0;
}


void pos_init(Position *pos, Gen *G, const LayoutObject *layout, const uint8_t *squares, const uint8_t *rack0,
              const uint8_t *rack1, uint32_t letters, int scoreless, int limit, int64_t out_bonus,
              int64_t stuck_loss) {
    memset(pos, 0, sizeof *pos);
    pos->letters = letters & ALL_LETTERS;
    pos->gen = G;
    G->cached[0] = G->cached[1] = 0; /* a new board: no line's set-up is kept */
    pos->layout = layout;
    pos->best_sink.keep = 1;
    pos->best_sink.items = &pos->best_item;
    pos->best_sink.cap = 1;
    memcpy(pos->sq, squares, (size_t)layout->rows * layout->cols);
    memcpy(pos->rack[0], rack0, RACK_CODES);
    memcpy(pos->rack[1], rack1, RACK_CODES);
    for (int i = 0; i < layout->rows * layout->cols; i++) {
        if (pos->sq[i]) {
            pos->board_key ^= Z_SQUARE[i][pos->sq[i]];
        }
    }
    refresh_all(pos);
    for (int p = 0; p < 2; p++) {
        for (int c = 0; c < RACK_CODES; c++) {
            pos->tiles[p] += pos->rack[p][c];
            pos->face[p] += (int64_t)pos->rack[p][c] * layout->values[c];
            pos->rack_key[p][0] ^= Z_RACK[0][c][pos->rack[p][c]];
            pos->rack_key[p][1] ^= Z_RACK[1][c][pos->rack[p][c]];
        }
    }
    pos->s = scoreless;
    pos->limit = limit;
    pos->out_bonus = out_bonus;
    pos->stuck_loss = stuck_loss;
}

uint32_t pos_rack_letters(const uint8_t *rack0, const uint8_t *rack1) {
    if (rack0[0] || rack1[0]) {
        return ALL_LETTERS;
    }
    uint32_t letters = 0;
    for (int code = 1; code < RACK_CODES; code++) {
        if (rack0[code] || rack1[code]) {
            letters |= (uint32_t)1 << code;
        }
    }
    return letters;
}
