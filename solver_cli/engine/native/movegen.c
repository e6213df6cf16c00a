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
 * The simulation's replies want only the best move (rollout.c sets G->shadow): then every
 * anchor's moves are bounded before any is walked, and the anchors are walked best bound
 * first until none left can beat the best found (generate_best, below). Ranks are a total
 * order (records.c's rank_cmp), so the move found is the one the full walk finds.
 *
 * Blanks are tried for every letter the square allows (the Python twin walks each placement
 * once and lists the blank choices afterwards; both give the same moves).
 */
#include "scrab.h"

/* The list of the last call that kept every move, for the next such call (see generate). */
static Record *spare_items = NULL;
static size_t spare_cap = 0;
#define MAX_SPARE ((size_t)1 << 20) /* records kept between calls: at most 48 MB */

/* ---------------------------------------------------------------------------------------
 * The generator.
 */




/* What keeping G->rack adds to a move's score, in thousandths of a point (Valuation.leave_term). With
 * the bag empty, the rule set's out_gain + out_loss times the rack that goes out: the opponent's when
 * this move goes out, this one's kept tiles when the opponent may go out next. Within int32: a rack's
 * face value is at most MAX_RACK * MAX_VALUE (20,000), times at most 2 * MAX_END_FACTOR, in
 * thousandths: 4e8. */
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
    int64_t factor = G->layout->out_factor;
    if (kept == 0) {
        return (int32_t)(factor * G->opponent * 1000);
    }
    return (int32_t)(-(factor * left + NOT_OUT_PENALTY) * 1000);
}

/* Whether a move of this score ranks after the worst of a full heap whatever its leave (only
 * for a caller that set G->capped: every leave term is then at most G->leave_cap). */
static int cannot_enter(const Gen *G, int64_t score) {
    const Sink *s = G->sink;
    if (!G->capped || s->keep == 0 || s->count < (size_t)s->keep) {
        return 0;
    }
    int64_t ds = score - s->items[0].score;
    if (ds < -DECISIVE || ds > DECISIVE) {
        return ds < 0;
    }
    return ds * 1000 + G->leave_cap < (int64_t)s->items[0].leave;
}

static void record(Gen *G, int first, int end, int64_t score) {
    if (cannot_enter(G, score)) {
        G->sink->total += G->mirror ? 2 : 1;
        return;
    }
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

/* For moves running `down` (else across): the letters the perpendicular word allows on empty
 * square i and that word's face value without the new tile (-1: no perpendicular neighbour,
 * every letter allowed, no cross-word scored; an occupied square: every letter, -1). */
static void cross_check_at(const LayoutObject *L, const uint8_t *sq, const uint32_t *g, uint32_t root,
                           uint32_t dawg_root, int down, int i, uint32_t letters_tried, uint32_t *mask_out,
                           int64_t *score_out) {
    int rows = L->rows, cols = L->cols;
    int step = down ? 1 : cols, limit = down ? cols : rows;
    *mask_out = ALL_LETTERS;
    *score_out = -1;
    if (sq[i]) {
        return;
    }
    int pos = down ? i % cols : i / cols;
    int has_before = pos > 0 && sq[i - step];
    int has_after = pos + 1 < limit && sq[i + step];
    if (!has_before && !has_after) {
        return;
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
    *score_out = sum;
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
        uint32_t letters = mask & letters_tried;
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
    *mask_out = allowed;
}

/* Per square, for moves running `down` (else across): cross_check_at for every square. */
static void cross_checks(const LayoutObject *L, const uint8_t *sq, const uint32_t *g, uint32_t root, uint32_t dawg_root,
                         int down, uint32_t *masks, int64_t *scores) {
    int n = L->rows * L->cols;
    for (int i = 0; i < n; i++) {
        cross_check_at(L, sq, g, root, dawg_root, down, i, ALL_LETTERS, &masks[i], &scores[i]);
    }
}

void cross_check_square(const Gen *G, const uint8_t *sq, int down, int i, uint32_t letters, uint32_t *mask,
                        int64_t *score) {
    cross_check_at(G->layout, sq, G->g, G->root, G->dawg_root, down, i, letters, mask, score);
}

/* Make `ln`, a line set up by setup_line, the one G walks. */
static void use_line(Gen *G, const SavedLine *ln, int down, int line) {
    G->down = down;
    G->line = line;
    G->n = ln->n;
    G->sq = ln->sq;
    G->tiles = ln->tiles;
    G->face = ln->face;
    G->is_anchor = ln->is_anchor;
    memcpy(G->strip, ln->tiles, (size_t)ln->n);
}

/* Set up line `line` of direction `down` (across: a row, down: a column) into `into` (NULL:
 * G's own): its tiles, its anchors and each square's checks and multipliers; then make it
 * the line G walks. 0 when it has no anchor (into->has_anchor says the same; G is then
 * unchanged). */
static int setup_line(Gen *G, SavedLine *into, const uint8_t *sq, const uint8_t *anchor, const uint32_t *masks,
                      const int64_t *scores, int down, int line) {
    const LayoutObject *L = G->layout;
    int cols = L->cols;
    int n = down ? L->rows : cols;
    int index[MAX_SIDE];
    int any_anchor = 0;
    if (into == NULL) {
        into = &G->own;
    }
    for (int p = 0; p < n; p++) {
        index[p] = down ? p * cols + line : line * cols + p;
        any_anchor |= anchor[index[p]];
    }
    into->has_anchor = any_anchor;
    if (!any_anchor) {
        return 0;
    }
    into->n = n;
    uint8_t *tiles = into->tiles;
    int run_end[MAX_SIDE + 1];
    run_end[n] = n;
    for (int p = n - 1; p >= 0; p--) {
        uint8_t t = sq[index[p]];
        tiles[p] = t;
        into->face[p] = (t && !(t & BLANK_BIT)) ? L->values[t] : 0;
        run_end[p] = t ? run_end[p + 1] : p;
    }
    for (int p = 0; p < n; p++) {
        int i = index[p];
        Square *s = &into->sq[p];
        int64_t wm = L->wm[i];
        into->is_anchor[p] = anchor[i];
        s->check = masks[i];
        s->lm = L->lm[i];
        s->wm = wm;
        s->base = scores[i] >= 0 ? scores[i] * wm : 0;
        s->xm = scores[i] >= 0 ? wm : 0;
        /* The left part may not fill an earlier anchor: each move comes from its leftmost. */
        int left_open = p > 0 && !tiles[p - 1] && !anchor[index[p - 1]];
        s->left_check = left_open ? masks[index[p - 1]] : 0;
        s->tile_on_left = p > 0 && tiles[p - 1];
        s->single_elsewhere = down && scores[i] >= 0;
        int end = p + 1 < n ? run_end[p + 1] : n;
        s->end = (uint8_t)end;
        s->next_check = end < n ? masks[index[end]] : 0;
    }
    use_line(G, into, down, line);
    return 1;
}

#ifdef ENDGAME_CHECK_INCREMENTAL
/* The check build's: a kept line's set-up is the one the line has now (else abort). */
static void check_kept_line(Gen *G, const SavedLine *kept, const uint8_t *sq, const uint8_t *anchor,
                            const uint32_t *masks, const int64_t *scores, int down, int line) {
    SavedLine *fresh = malloc(sizeof *fresh);
    if (fresh == NULL) {
        abort();
    }
    const Square *was_sq = G->sq;
    const uint8_t *was_tiles = G->tiles, *was_anchor = G->is_anchor;
    const int64_t *was_face = G->face;
    int was[3] = {G->down, G->line, G->n};
    int has = setup_line(G, fresh, sq, anchor, masks, scores, down, line);
    if (has != kept->has_anchor) {
        abort();
    }
    for (int p = 0; has && p < fresh->n; p++) {
        const Square *a = &fresh->sq[p], *b = &kept->sq[p];
        if (fresh->n != kept->n || fresh->tiles[p] != kept->tiles[p] || fresh->face[p] != kept->face[p] ||
            fresh->is_anchor[p] != kept->is_anchor[p] || a->check != b->check || a->lm != b->lm || a->wm != b->wm ||
            a->base != b->base || a->xm != b->xm || a->left_check != b->left_check ||
            a->tile_on_left != b->tile_on_left || a->single_elsewhere != b->single_elsewhere || a->end != b->end ||
            a->next_check != b->next_check) {
            abort();
        }
    }
    free(fresh);
    G->sq = was_sq; /* (the caller uses the kept one next) */
    G->tiles = was_tiles;
    G->is_anchor = was_anchor;
    G->face = was_face;
    G->down = was[0];
    G->line = was[1];
    G->n = was[2];
}
#endif

/* setup_line, from G->line_cache when the line's set-up is kept there (and kept there after). */
static int setup_line_cached(Gen *G, const uint8_t *sq, const uint8_t *anchor, const uint32_t *masks,
                             const int64_t *scores, int down, int line) {
    if (G->line_cache == NULL) {
        return setup_line(G, NULL, sq, anchor, masks, scores, down, line);
    }
    SavedLine *kept = &G->line_cache[down * MAX_SIDE + line];
    uint32_t bit = (uint32_t)1 << line;
    if (G->cached[down] & bit) {
#ifdef ENDGAME_CHECK_INCREMENTAL
        check_kept_line(G, kept, sq, anchor, masks, scores, down, line);
#endif
        if (kept->has_anchor) {
            use_line(G, kept, down, line);
        }
        return kept->has_anchor;
    }
    G->cached[down] |= bit;
    return setup_line(G, kept, sq, anchor, masks, scores, down, line);
}

/* Every move of the line set up in G that anchor p leads to: Gen/GoOn from the anchor. */
static void walk_anchor(Gen *G, int p) {
    /* Read the anchor's run of right-hand tiles backwards, from its last tile. */
    int after_run = G->sq[p].end;
    G->after_run = after_run;
    G->turn_check = G->sq[p].next_check;
    uint32_t state = G->root;
    int64_t main = 0;
    for (int q = after_run - 1; q > p; q--) {
        int t = G->tiles[q] & LETTER_MASK;
        uint32_t m = G->g[state];
        if (!(m & ((uint32_t)1 << t))) {
            return;
        }
        state = CHILD(G->g, state, m, t);
        main += G->face[q];
    }
    gen_left(G, p, state, main, 1, 0, 0);
}

static void generate_direction(Gen *G, const uint8_t *sq, const uint8_t *anchor, const uint32_t *masks,
                               const int64_t *scores, int down) {
    int line_count = down ? G->layout->cols : G->layout->rows;
    for (int line = 0; line < line_count; line++) {
        if (!setup_line_cached(G, sq, anchor, masks, scores, down, line)) {
            continue;
        }
        for (int p = 0; p < G->n; p++) {
            if (G->is_anchor[p]) {
                walk_anchor(G, p);
            }
        }
    }
}

/* ---------------------------------------------------------------------------------------
 * Best-move searches (G->shadow): every anchor's moves are bounded before any is walked, then
 * the anchors are walked best bound first, until none left can beat the worst move kept. This
 * is MAGPIE's "shadow playing" in a simpler form: a bound per anchor from the squares its moves
 * can cover, the rack's tile values and the board's multipliers, letters ignored.
 */

/* The face values of the board tiles directly right of empty square x (up to the next empty). */
static int64_t run_after(const Gen *G, int x) {
    int64_t sum = 0;
    for (int q = x + 1; q < G->sq[x].end; q++) {
        sum += G->face[q];
    }
    return sum;
}

/* The face values of the board tiles directly left of square x. */
static int64_t run_before(const Gen *G, int x) {
    int64_t sum = 0;
    for (int q = x - 1; q >= 0 && G->tiles[q]; q--) {
        sum += G->face[q];
    }
    return sum;
}

/* The highest value of a rack letter that `check` allows (0 when only a blank fits). */
static int64_t highest_fit(const Gen *G, uint32_t check) {
    for (int k = 0; k < G->letter_count; k++) {
        if (check & ((uint32_t)1 << G->letters_desc[k])) {
            return G->layout->values[G->letters_desc[k]];
        }
    }
    return 0;
}

/* An upper bound, in thousandths of a point, on the equity of every move walk_anchor(G, p)
 * finds in the line set up in G: INT64_MIN when it can find none, INT64_MAX when the bound is
 * too large to compare. A move covers p and, next to it, up to G->rack_tiles - 1 more empty
 * squares: to the left those gen_left may enter, to the right those gen_right may (board tiles
 * between them join the word). For each such span the score is at most the board tiles' part
 * plus the best pairing of the rack's tile values (highest first) with the squares'
 * coefficients (letter multiplier times the word's multiplier plus the cross-word's), and the
 * leave term at most G->kept_cap[tiles kept]. */
static int64_t anchor_bound(const Gen *G, int p) {
    const Square *S = G->sq;
    uint32_t fits = G->bits | (G->rack[0] ? ALL_LETTERS : 0);
    if (!(S[p].check & fits)) {
        return INT64_MIN;
    }
    int T = G->rack_tiles, rack_size = G->layout->rack_size;
    int left[MAX_RACK], right[MAX_RACK], A = 0, B = 0;
    for (int q = p; A < T - 1 && (S[q].left_check & fits); q--) {
        left[A++] = q - 1;
    }
    for (int q = S[p].end; B < T - 1 && q < G->n && (S[q].check & fits); q = S[q].end) {
        right[B++] = q;
    }
    int64_t best = INT64_MIN;
    int placed[MAX_RACK];
    int64_t fit[MAX_RACK]; /* highest_fit of each placed square */
    int64_t fit_p = highest_fit(G, S[p].check), fit_left[MAX_RACK];
    for (int i = 0; i < A; i++) {
        fit_left[i] = highest_fit(G, S[left[i]].check);
    }
    int64_t left_mult = S[p].wm, left_board = run_after(G, p), left_base = S[p].base;
    for (int a = 0; a <= A; a++) {
        if (a) {
            left_mult *= S[left[a - 1]].wm;
            left_base += S[left[a - 1]].base;
        }
        int first = a ? left[a - 1] : p;
        int64_t mult = left_mult, board = left_board + (S[first].tile_on_left ? run_before(G, first) : 0);
        int64_t base = left_base;
        int k = 0;
        fit[k] = fit_p;
        placed[k++] = p;
        for (int i = 0; i < a; i++) {
            fit[k] = fit_left[i];
            placed[k++] = left[i];
        }
        for (int b = 0; b <= B && a + 1 + b <= T; b++) {
            if (b) {
                int q = right[b - 1];
                mult *= S[q].wm;
                board += run_after(G, q);
                base += S[q].base;
                fit[k] = highest_fit(G, S[q].check);
                placed[k++] = q;
            }
            /* Two bounds on the tiles' part, the lower taken: the rack's values paired with the
             * coefficients, both highest first (any tile on any square), and each square's
             * coefficient times the highest value of a rack letter its cross-check allows
             * (a tile used on several squares). */
            int64_t coef[MAX_RACK], fitted = 0;
            for (int i = 0; i < k; i++) { /* insertion sort, highest first */
                const Square *s = &S[placed[i]];
                int64_t c = s->lm * (mult + s->xm);
                fitted += c * fit[i];
                int j = i;
                for (; j > 0 && coef[j - 1] < c; j--) {
                    coef[j] = coef[j - 1];
                }
                coef[j] = c;
            }
            int64_t paired = 0;
            for (int i = 0; i < k; i++) {
                paired += coef[i] * G->values_desc[i];
            }
            int64_t score = mult * board + base + (k == rack_size ? G->layout->bingo : 0);
            score += paired < fitted ? paired : fitted;
            if (score > DECISIVE) {
                return INT64_MAX;
            }
            int64_t equity = score * 1000 + G->kept_cap[T - k];
            best = equity > best ? equity : best;
        }
    }
    return best;
}

typedef struct {
    int64_t bound;
    uint8_t down, line, p;
} AnchorBound;

static int bound_cmp(const void *a, const void *b) { /* highest bound first */
    int64_t x = ((const AnchorBound *)a)->bound, y = ((const AnchorBound *)b)->bound;
    return x > y ? -1 : x < y;
}

/* Whether no move whose equity is at most `bound` (thousandths) can enter the full heap. */
static int bound_cannot_enter(const Gen *G, int64_t bound) {
    const Sink *s = G->sink;
    if (s->keep == 0 || s->count < (size_t)s->keep || bound == INT64_MAX || s->items[0].score > DECISIVE) {
        return 0;
    }
    return bound < s->items[0].score * 1000 + (int64_t)s->items[0].leave;
}

static void generate_best(Gen *G, const uint8_t *sq, const uint8_t *anchor, const uint32_t *const masks[2],
                          const int64_t *const scores[2]) {
    AnchorBound order[2 * MAX_SQUARES];
    size_t count = 0;
    int T = 0;
    for (int code = 0; code < RACK_CODES; code++) {
        for (int k = 0; k < G->rack[code] && T < MAX_RACK; k++) {
            int64_t v = code ? G->layout->values[code] : 0;
            int j = T++;
            for (; j > 0 && G->values_desc[j - 1] < v; j--) {
                G->values_desc[j] = G->values_desc[j - 1];
            }
            G->values_desc[j] = v;
        }
    }
    G->rack_tiles = T;
    G->letter_count = 0;
    for (int code = 1; code < RACK_CODES; code++) {
        if (G->rack[code]) {
            int j = G->letter_count++;
            for (; j > 0 && G->layout->values[G->letters_desc[j - 1]] < G->layout->values[code]; j--) {
                G->letters_desc[j] = G->letters_desc[j - 1];
            }
            G->letters_desc[j] = (uint8_t)code;
        }
    }
    if (T == 0) {
        return;
    }
    for (int down = 0; down < 2; down++) {
        int line_count = down ? G->layout->cols : G->layout->rows;
        for (int line = 0; line < line_count; line++) {
            SavedLine *keep = G->saved != NULL ? &G->saved[down * MAX_SIDE + line] : NULL;
            if (!setup_line(G, keep, sq, anchor, masks[down], scores[down], down, line)) {
                continue;
            }
            for (int p = 0; p < G->n; p++) {
                if (G->is_anchor[p]) {
                    int64_t bound = anchor_bound(G, p);
                    if (bound != INT64_MIN) {
                        order[count++] = (AnchorBound){bound, (uint8_t)down, (uint8_t)line, (uint8_t)p};
                    }
                }
            }
        }
    }
    qsort(order, count, sizeof order[0], bound_cmp);
    int set_down = -1, set_line = -1;
    for (size_t k = 0; k < count; k++) {
        const AnchorBound *e = &order[k];
        if (bound_cannot_enter(G, e->bound)) {
            break; /* nor can any later one: their bounds are no higher */
        }
        if (e->down != set_down || e->line != set_line) {
            if (G->saved != NULL) { /* the line as the first pass set it up */
                use_line(G, &G->saved[e->down * MAX_SIDE + e->line], e->down, e->line);
            } else {
                setup_line(G, NULL, sq, anchor, masks[e->down], scores[e->down], e->down, e->line);
            }
            set_down = e->down;
            set_line = e->line;
        }
        walk_anchor(G, e->p);
    }
}

void generate_all(Gen *G, const uint8_t *sq) {
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

/* Every move for G->rack given each square's anchor flag and cross-checks for both
 * directions (kept up to date by a caller that plays and unplays moves: the endgame). The
 * same moves as generate_all; on an empty board the down moves are found, not mirrored. */
void generate_prepared(Gen *G, const uint8_t *sq, const uint8_t *anchor, const uint32_t *const masks[2],
                       const int64_t *const scores[2]) {
    G->mirror = 0;
    if (G->shadow) {
        generate_best(G, sq, anchor, masks, scores);
        return;
    }
    for (int down = 0; down < 2; down++) {
        generate_direction(G, sq, anchor, masks[down], scores[down], down);
    }
}

/* The endgame's: generate_prepared on the lines whose bits are set in lines[0] (rows: the
 * moves across) and lines[1] (columns: the moves down) only, so that it walks only the
 * lines a play changed (in the same order as the whole board's walk). */
void generate_prepared_lines(Gen *G, const uint8_t *sq, const uint8_t *anchor, const uint32_t lines[2],
                             const uint32_t *const masks[2], const int64_t *const scores[2]) {
    G->mirror = 0;
    for (int down = 0; down < 2; down++) {
        int line_count = down ? G->layout->cols : G->layout->rows;
        for (uint32_t left = lines[down]; left;) {
            int line = lowest_bit(left);
            left &= left - 1;
            if (line >= line_count || !setup_line_cached(G, sq, anchor, masks[down], scores[down], down, line)) {
                continue;
            }
            for (int p = 0; p < G->n; p++) {
                if (G->is_anchor[p]) {
                    walk_anchor(G, p);
                }
            }
        }
    }
}

/* Every distinct non-empty multiset of at most `most` tiles thrown back from the rack (kind
 * EXCHANGE, codes: the tiles thrown, ascending, 0 the blank), then the pass if `passes`. */
void other_moves(Gen *G, int most, int passes) {
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
 * The module's functions.
 */

const char generate_doc[] = PyDoc_STR(

             "generate(lexicon, layout, squares, rack, keep=0, sort=False, leaves=None, bag=1, opponent=0,\n"
             "         exchange=0, passes=False) -> (total, records)\n\n"
             "Every legal move for the rack (27 counts as bytes, index 0 the blanks) on the board (one\n"
             "byte a square, row-major), then every exchange of at most `exchange` tiles and the pass\n"
             "(if `passes`). keep=0 returns every move (ranked if sort), keep=N the best N in rank\n"
             "order. With `leaves` moves rank by equity: score plus the leave's value, or with bag=0\n"
             "the end-of-game adjustments (`opponent`: the face value of the opponent's rack).\n"
             "records packs one 48-byte record a move; total counts every move found.");

PyObject *generate(PyObject *module, PyObject *args, PyObject *kwds) {
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

