/* The endgame search's Python entry point, endgame() (endgame.h lists the files): its
 * arguments checked, the search run without the GIL, which it takes back about every 0.1 s
 * to run the signal handlers (Ctrl-C stops it with what it has) and, about every 0.2 s, the
 * progress callback; the result built.
 */
#include "endgame.h"

#include <time.h>

#define MAX_GAIN 10     /* out_gain, out_loss, stuck_loss */
#define MAX_PLIES 64    /* the plies argument (0: no limit) */
#define MAX_TOP 1000    /* first moves listed */
#define MAX_SECONDS 86400.0
#define MAX_TT_MB 65536
#define MAX_THRESHOLD (1LL << 61) /* beyond any value (endgame.c), and t +- 1 stays inside +-INF */

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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
                                             (long long)S->best_value, best);
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
void visit_python(Search *S, double now, int force_progress) {
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

/* ---------------------------------------------------------------------------------------
 * The entry point.
 */
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
    "        stuck_loss, plies, top, seconds, tt_mb, progress, threshold=None)\n"
    "    -> (status, depth, nodes, best, pv), or with a threshold (status, depth, nodes, value)\n\n"
    "Solve the endgame (the bag empty) where `mover` (27 counts) is to move against `opponent`\n"
    "after `scoreless` scoreless turns in a row. plies=0 and seconds=0: no limit. status 0\n"
    "proven, 1 cut by plies, 2 cut by time, 3 interrupted (Ctrl-C), 4 proven and interrupted\n"
    "while its variation was followed (the line cut). best: (value, record) for\n"
    "the `top` best first moves, best first; pv: packed records from the best first move on.\n"
    "progress(depth, nodes, value, record or None) is called after each iteration and about\n"
    "every 0.2 s; an exception it raises stops the search and propagates. With `threshold`\n"
    "(an integer, |threshold| < 2^61) the search only settles where the value lies against it\n"
    "(endgame_decide): value is a bound, below it, above it, or the threshold itself (exact).");

PyObject *endgame(PyObject *module, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"lexicon",  "layout",     "squares", "mover", "opponent", "scoreless",
                             "scoreless_limit", "out_gain", "out_loss", "stuck_loss", "plies", "top",
                             "seconds", "tt_mb", "progress", "threshold", NULL};
    PyObject *lexicon_obj, *layout_obj, *progress, *threshold_obj = Py_None;
    PyObject *scoreless_obj, *limit_obj, *gain_obj, *loss_obj, *stuck_obj, *plies_obj, *top_obj, *tt_obj;
    double seconds;
    Py_buffer squares, mover, opponent;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!y*y*y*OOOOOOOdOO|O:endgame", kwlist, &LexiconType,
                                     &lexicon_obj, &LayoutType, &layout_obj, &squares, &mover, &opponent,
                                     &scoreless_obj, &limit_obj, &gain_obj, &loss_obj, &stuck_obj, &plies_obj, &top_obj,
                                     &seconds, &tt_obj, &progress, &threshold_obj)) {
        return NULL;
    }
    LexiconObject *lexicon = (LexiconObject *)lexicon_obj;
    LayoutObject *layout = (LayoutObject *)layout_obj;
    long long scoreless, limit, out_gain, out_loss, stuck_loss, plies, top, tt_mb, threshold = 0;
    int ok = 0;
    if (!lexicon->has_view || !layout->ready) {
        PyErr_SetString(PyExc_ValueError, "endgame: the lexicon or layout was not initialised");
    } else if (squares.len != (Py_ssize_t)layout->rows * layout->cols) {
        PyErr_SetString(PyExc_ValueError, "endgame: squares must be one byte a square of the layout's board");
    } else if (rack_arg(&mover, "mover") < 0 || rack_arg(&opponent, "opponent") < 0) {
    } else if (int_arg("endgame", limit_obj, "scoreless_limit", 1, MAX_LIMIT, &limit) < 0 ||
               int_arg("endgame", scoreless_obj, "scoreless", 0, limit - 1, &scoreless) < 0 ||
               int_arg("endgame", gain_obj, "out_gain", 0, MAX_GAIN, &out_gain) < 0 ||
               int_arg("endgame", loss_obj, "out_loss", 0, MAX_GAIN, &out_loss) < 0 ||
               int_arg("endgame", stuck_obj, "stuck_loss", 0, MAX_GAIN, &stuck_loss) < 0 ||
               int_arg("endgame", plies_obj, "plies", 0, MAX_PLIES, &plies) < 0 ||
               int_arg("endgame", top_obj, "top", 1, MAX_TOP, &top) < 0 ||
               int_arg("endgame", tt_obj, "tt_mb", 1, MAX_TT_MB, &tt_mb) < 0 ||
               (threshold_obj != Py_None &&
                int_arg("endgame", threshold_obj, "threshold", -MAX_THRESHOLD, MAX_THRESHOLD, &threshold) < 0)) {
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
    endgame_init_zobrist();

    Search *S = calloc(1, sizeof(Search));
    Gen *G = calloc(1, sizeof(Gen));
    Ply *plies_mem = calloc(MAX_DEPTH + 2, sizeof(Ply));
    size_t buckets, most_buckets;
    Bucket *table = table_new(tt_mb, &buckets, &most_buckets);
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
    S->ply = plies_mem;
    S->table = table;
    S->buckets = buckets;
    S->most_buckets = most_buckets;
    G->g = lexicon->nodes;
    G->root = lexicon->root;
    G->dawg_root = lexicon->dawg_root;
    G->layout = layout;
    /* the lines' set-ups kept between moves (without the room, each is set up every time) */
    G->line_cache = malloc(2 * MAX_SIDE * sizeof(SavedLine));
    pos_init(&S->pos, G, layout, squares.buf, mover.buf, opponent.buf, pos_rack_letters(mover.buf, opponent.buf),
             (int)scoreless, (int)limit, out_gain + out_loss, stuck_loss);
    PyBuffer_Release(&squares);
    PyBuffer_Release(&mover);
    PyBuffer_Release(&opponent);
    S->progress = progress == Py_None ? NULL : progress;
    S->started = now_seconds();
    S->deadline = seconds > 0 ? S->started + seconds : 0;
    S->last_gil = S->last_progress = S->started;

    Root R = {0};
    Line line = {0};
    int depth_done = 0;
    Record *root_moves = NULL;
    int64_t decided = 0;
    S->thread = PyEval_SaveThread();
    int status = threshold_obj != Py_None
                     ? endgame_decide(S, (int)plies, (int64_t)threshold, &decided, &depth_done)
                     : endgame_run(S, &R, (int)plies, (int)top, &line, &depth_done, &root_moves);
    int failed = S->fail_memory || S->stop == STOP_ERROR;
    PyEval_RestoreThread(S->thread);

    PyObject *result = NULL;
    if (failed) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
    } else if (threshold_obj != Py_None) {
        result = Py_BuildValue("(iiKL)", status, depth_done, (unsigned long long)S->nodes, (long long)decided);
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
        free(S->ply[p].order);
        free(S->ply[p].keys);
        free(S->ply[p].spare);
        free((void *)S->ply[p].outs_up);
    }
    free(S->ply);
    free(S->pre.moves);
    free(S->pre.order);
    free(S->pre.keys);
    free(S->pre.spare);
    free((void *)S->pre.outs_up);
    free(S->table);
    free(S->pos.gen->line_cache);
    free(S->pos.gen);
    free(S);
    return result;
}