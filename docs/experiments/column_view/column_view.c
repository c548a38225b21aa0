/* A throwaway experiment, not part of the engine: an entity whose ``x`` is a view of a
 * float64 column (a getter and a setter in C), to time against an entity whose ``x`` is a
 * slot, as the engine's are. See run.py. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static double *committed = NULL, *pending = NULL;
static Py_ssize_t rows = 0, room = 0;

typedef struct {
    PyObject_HEAD
    Py_ssize_t row;
} Viewed;

/* Reading boxes the double: a new float object at every read. */
static PyObject *
get_x(Viewed *self, void *closure)
{
    return PyFloat_FromDouble(pending[self->row]);
}

static int
set_x(Viewed *self, PyObject *value, void *closure)
{
    double number = value == NULL ? -1.0 : PyFloat_AsDouble(value);
    if (number == -1.0 && (value == NULL || PyErr_Occurred())) {
        if (value == NULL) {
            PyErr_SetString(PyExc_AttributeError, "x cannot be deleted");
        }
        return -1;
    }
    pending[self->row] = number;
    return 0;
}

static int
viewed_init(Viewed *self, PyObject *args, PyObject *kwargs)
{
    if (rows == room) {
        Py_ssize_t larger = room ? room * 2 : 1024;
        double *c = PyMem_Realloc(committed, sizeof(double) * (size_t)larger);
        if (c == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        committed = c;
        double *p = PyMem_Realloc(pending, sizeof(double) * (size_t)larger);
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        pending = p;
        room = larger;
    }
    self->row = rows++;
    committed[self->row] = pending[self->row] = 0.0;
    return 0;
}

/* The commit a column layout would make: one copy of the column. */
static PyObject *
commit(PyObject *module, PyObject *unused)
{
    memcpy(committed, pending, sizeof(double) * (size_t)rows);
    Py_RETURN_NONE;
}

static PyGetSetDef viewed_getset[] = {
    {"x", (getter)get_x, (setter)set_x, "x, a view of a float64 column", NULL},
    {NULL},
};

static PyTypeObject ViewedType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "column_view.Viewed",
    .tp_basicsize = sizeof(Viewed),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_getset = viewed_getset,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)viewed_init,
};

static PyMethodDef methods[] = {
    {"commit", commit, METH_NOARGS, "Copy the pending column over the committed one."},
    {NULL},
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "column_view", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_column_view(void)
{
    if (PyType_Ready(&ViewedType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&ViewedType);
    if (PyModule_AddObject(module, "Viewed", (PyObject *)&ViewedType) < 0) {
        Py_DECREF(&ViewedType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
