/* A rule set's board and scoring, checked once. */
#include "scrab.h"

/* ---------------------------------------------------------------------------------------
 * Layout: a rule set's board and scoring, checked once.
 */


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
    static char *kwlist[] = {"rows",  "cols",   "letter_mult", "word_mult", "values", "rack_size",
                             "bingo", "centre", "out_gain",    "out_loss",  NULL};
    int rows, cols, rack_size, centre, out_gain = 1, out_loss = 1;
    long long bingo;
    PyObject *lm, *wm, *values;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiOOOiLi|ii:Layout", kwlist, &rows, &cols, &lm, &wm, &values,
                                     &rack_size, &bingo, &centre, &out_gain, &out_loss)) {
        return -1;
    }
    if (out_gain < 0 || out_gain > MAX_END_FACTOR || out_loss < 0 || out_loss > MAX_END_FACTOR) {
        PyErr_Format(PyExc_ValueError, "out_gain and out_loss must be 0..%d", MAX_END_FACTOR);
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
    self->out_factor = out_gain + out_loss;
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

PyTypeObject LayoutType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "solver_cli.engine._movegen_c.Layout",
    .tp_doc = PyDoc_STR("Layout(rows, cols, letter_mult, word_mult, values, rack_size, bingo, centre, out_gain=1, "
                        "out_loss=1): a rule set, checked once."),
    .tp_basicsize = sizeof(LayoutObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Layout_init,
};
