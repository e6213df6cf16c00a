/* The module: its functions, types and constants. */
#include "scrab.h"

/* A square's code: empty, a tile (1-26) or a blank standing for one. */
int valid_square(uint8_t code) {
    return code == 0 || (code >= 1 && code <= 26) || (code >= (BLANK_BIT | 1) && code <= (BLANK_BIT | 26));
}

/* An int argument of entry point `who` within lo..hi, else TypeError or ValueError naming it. */
int int_arg(const char *who, PyObject *obj, const char *name, long long lo, long long hi, long long *out) {
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be an int, not %.100s", who, name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow || v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s: %s must be %lld..%lld", who, name, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static PyMethodDef methods[] = {
    {"generate", (PyCFunction)(void (*)(void))generate, METH_VARARGS | METH_KEYWORDS, generate_doc},
    {"endgame", (PyCFunction)(void (*)(void))endgame, METH_VARARGS | METH_KEYWORDS, endgame_doc},
    {"rollout", rollout, METH_VARARGS, rollout_doc},
    {"possible_words", possible_words, METH_VARARGS, possible_words_doc},
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
