/* engine._spatial: the compiled half of the collision grid (see engine/spatial.py).
 *
 * engine/spatial.py decides everything: which entities a grid holds, its levels, their
 * cells (built with numpy, the same on both paths). This module only does, in C, what a
 * query does thousands of times a tick, and its pure-Python twin (``PyTable``, ``PyGrid``
 * in spatial.py) does the same, line for line, with the same answers:
 *
 *   gather(entities, names, x, y, ids, looks, hitboxes, kinds)
 *       one walk over the entities a tick starts with: positions and ids into buffers,
 *       looks, hitboxes and classes as indices into lists of the distinct objects. It reads
 *       as getattr does, but finds how once per class: a slot at its offset, a data
 *       descriptor's __get__ called directly (see ``Reader``);
 *   Table(entities, ids, x, y, half_width, half_height, boxed)
 *       the boxes of one tick, sorted by id, copied into memory of its own;
 *   Grid(table, levels, everywhere), build(table, slots, levels, budget=0)
 *       one kind's cells over a table: ``overlapping``, ``overlapping_box``, ``near`` and
 *       ``members`` (a crowd's members against the grid, in one call). ``build`` computes
 *       the levels in C; with a budget it starts unbuilt (every slot tested by every query,
 *       the same answers) and builds them once its queries have tested that many slots.
 *
 * A table and a grid copy every array they are given and never change afterwards (but for
 * an unbuilt grid's levels, built inside a query before it walks them, calling no Python
 * code), so no Python code that runs during a query (a property read by ``gather``,
 * ``math.hypot``, a finalizer started by an allocation) can change what a query walks. Entities are held in
 * a tuple (a list could be emptied under us). Every call that can run Python code is made
 * before the pointers it could invalidate are taken, or holds a strong reference across it.
 * tests/test_spatial_core.py throws bad buffers, wrong types and mutating callbacks at every
 * entry point and runs under ASAN and PYTHONMALLOC=debug (.ci/sanitize).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 8
/* Cells hold members whose half extent is at most half a cell; a query reaches this much
 * further (half a cell and 1/1024 of one more), so rounding never loses a member at an edge. */
#define REACH 0.5009765625
#define NEAR_REACH 0.0009765625
/* No member's cell number goes past 2**30 (spatial.py puts anyone further in ``everywhere``):
 * cell numbers beyond this bound hold nobody and are clamped before any conversion to int
 * (and a sparse key, x * 2**32 + y, stays far inside int64). */
#define CELL_BOUND 1073741825.0

static PyObject *hypot_function = NULL;  /* math.hypot: near() measures as the pure path does */
static PyObject *str_id = NULL;

/* -- buffers ------------------------------------------------------------------------------ */

/* Whether the struct format character ``got`` is the native type ``want`` names: numpy calls
 * int64 'l' where a long has 8 bytes, and int32 'l' where it has 4. */
static int
same_format(char got, char want)
{
    if (got == want) {
        return 1;
    }
    if (got == 'l') {
        return (want == 'q' && sizeof(long) == 8) || (want == 'i' && sizeof(long) == 4);
    }
    return 0;
}

/* ``obj``'s buffer if it is C-contiguous, of ``format`` (one character, native) and holds at least
 * ``count`` items; else TypeError naming ``what``. */
static int
get_buffer(PyObject *obj, Py_buffer *view, char format, Py_ssize_t itemsize, Py_ssize_t count, int writable,
           const char *what)
{
    int flags = PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be a %scontiguous buffer of native %c, got %.100s", what,
                     writable ? "writable " : "", format, Py_TYPE(obj)->tp_name);
        return -1;
    }
    const char *got = view->format == NULL ? "B" : view->format;
    if (got[0] == '@' || got[0] == '=' || got[0] == (PY_LITTLE_ENDIAN ? '<' : '>')) {
        got++;
    }
    if (!same_format(got[0], format) || got[1] != '\0' || view->itemsize != itemsize || view->len / itemsize < count) {
        PyErr_Format(PyExc_TypeError, "%s must be a %scontiguous buffer of at least %zd native %c, got format %s "
                     "with %zd bytes", what, writable ? "writable " : "", count, format,
                     view->format == NULL ? "B" : view->format, view->len);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* A copy of ``count`` items of ``obj``'s buffer in memory of our own (never NULL on success). */
static void *
copy_buffer(PyObject *obj, char format, Py_ssize_t itemsize, Py_ssize_t count, const char *what)
{
    Py_buffer view;
    if (get_buffer(obj, &view, format, itemsize, count, 0, what) < 0) {
        return NULL;
    }
    void *copy = PyMem_Malloc(count > 0 ? (size_t)(count * itemsize) : 1);
    if (copy == NULL) {
        PyBuffer_Release(&view);
        PyErr_NoMemory();
        return NULL;
    }
    if (count > 0) {
        memcpy(copy, view.buf, (size_t)(count * itemsize));
    }
    PyBuffer_Release(&view);
    return copy;
}

/* A copy of all of ``obj``'s buffer (``*count`` items) in memory of our own (never NULL on success). */
static void *
copy_all(PyObject *obj, char format, Py_ssize_t itemsize, Py_ssize_t *count, const char *what)
{
    Py_buffer view;
    if (get_buffer(obj, &view, format, itemsize, 0, 0, what) < 0) {
        return NULL;
    }
    *count = view.len / itemsize;
    void *copy = PyMem_Malloc(view.len > 0 ? (size_t)view.len : 1);
    if (copy == NULL) {
        PyBuffer_Release(&view);
        PyErr_NoMemory();
        return NULL;
    }
    if (view.len > 0) {
        memcpy(copy, view.buf, (size_t)view.len);
    }
    PyBuffer_Release(&view);
    return copy;
}

/* -- gather ------------------------------------------------------------------------------- */

/* The distinct objects of one attribute seen so far: a list holding them (so no address is
 * reused while we run), a dict from address to index, and the last few found, looked at first,
 * since neighbours in the update order mostly share a look, a hitbox and a class. */
#define RECENT 4
typedef struct {
    PyObject *found;
    PyObject *seen;
    PyObject *recent[RECENT];   /* borrowed: ``found`` holds them */
    int32_t recent_index[RECENT];
    int next_recent;
} Distinct;

static int
distinct_init(Distinct *d)
{
    memset(d, 0, sizeof(*d));
    d->found = PyList_New(0);
    d->seen = PyDict_New();
    return d->found != NULL && d->seen != NULL ? 0 : -1;
}

static void
distinct_free(Distinct *d)
{
    Py_XDECREF(d->seen);
    Py_XDECREF(d->found);
}

/* Index of ``value`` among the distinct objects seen so far (by identity), adding it if new. */
static int
distinct(Distinct *d, PyObject *value, int32_t *index)
{
    for (int n = 0; n < RECENT; n++) {
        if (d->recent[n] == value && value != NULL) {
            *index = d->recent_index[n];
            return 0;
        }
    }
    PyObject *key = PyLong_FromVoidPtr(value);
    if (key == NULL) {
        return -1;
    }
    PyObject *known = PyDict_GetItemWithError(d->seen, key);
    if (known != NULL) {
        *index = (int32_t)PyLong_AsLong(known);
    } else {
        if (PyErr_Occurred()) {
            Py_DECREF(key);
            return -1;
        }
        Py_ssize_t next = PyList_GET_SIZE(d->found);
        if (next >= INT32_MAX) {
            Py_DECREF(key);
            PyErr_SetString(PyExc_OverflowError, "gather: too many distinct looks, hitboxes or classes");
            return -1;
        }
        PyObject *number = PyLong_FromSsize_t(next);
        /* The list holds the object first: while it is in the list its address names nobody else. */
        if (number == NULL || PyList_Append(d->found, value) < 0 || PyDict_SetItem(d->seen, key, number) < 0) {
            Py_XDECREF(number);
            Py_DECREF(key);
            return -1;
        }
        Py_DECREF(number);
        *index = (int32_t)next;
    }
    Py_DECREF(key);
    d->recent[d->next_recent] = value;
    d->recent_index[d->next_recent] = *index;
    d->next_recent = (d->next_recent + 1) % RECENT;
    return 0;
}

/* A class's name as ``type.__name__`` says it: tp_name after its module's dots. */
static const char *
short_name(PyTypeObject *type)
{
    const char *dot = strrchr(type->tp_name, '.');
    return dot == NULL ? type->tp_name : dot + 1;
}

/* A position read as the pure path reads it: a float (or subclass) as its value, an int (or
 * bool) as float(int), never through an overridden __float__; anything else refused by name. */
static int
position(PyObject *entity, PyObject *value, const char *field, double *out)
{
    if (PyFloat_Check(value)) {
        *out = PyFloat_AS_DOUBLE(value);
        return 0;
    }
    if (PyLong_Check(value)) {
        double number = PyLong_AsDouble(value);
        if (number == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        *out = number;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "%.200s's %s is a %.200s, not a number (collisions read x and y as numbers)",
                 short_name(Py_TYPE(entity)), field, short_name(Py_TYPE(value)));
    return -1;
}

/* How the gather reads one attribute of the entities of one class, found once per class and call:
 * what CPython's generic getattr would do, without its walk each time. A slot (a member
 * descriptor of the class's layout) is read at its offset; a data descriptor (``look``) has
 * its __get__ called directly, as getattr calls it; anything else (an instance attribute, a
 * class attribute an instance may shadow, a class with its own getattr) goes through
 * PyObject_GetAttr. An empty slot goes through PyObject_GetAttr too, for getattr's own error. */
enum { READ_GENERIC, READ_SLOT, READ_DESCRIPTOR };
#define READS 5   /* x, y, id, look, hitbox: in the order the walk reads them */

typedef struct {
    int how;
    Py_ssize_t offset;       /* READ_SLOT */
    PyObject *descriptor;    /* READ_DESCRIPTOR: a strong reference, as getattr holds one across __get__ */
} Read;

/* One class's reads, valid while the class keeps the version tag it had when they were found:
 * CPython zeroes a class's tag whenever it (or a base) changes, so a class changed by code a
 * read runs (a property that reassigns an attribute of its class) is looked at again. */
typedef struct {
    PyTypeObject *type;      /* a strong reference while cached */
    unsigned int tag;
    Read reads[READS];
} Resolved;

#define RESOLVED 4
typedef struct {
    PyObject *names[READS];  /* strong references, interned where they are exact strings */
    Resolved cache[RESOLVED];
    int next;
} Reader;

static void
resolved_clear(Resolved *entry)
{
    for (int k = 0; k < READS; k++) {
        Py_CLEAR(entry->reads[k].descriptor);
        entry->reads[k].how = READ_GENERIC;
    }
    Py_CLEAR(entry->type);
    entry->tag = 0;
}

static int
reader_init(Reader *reader, PyObject *names)
{
    memset(reader, 0, sizeof(*reader));
    PyObject *all[READS] = {PyTuple_GET_ITEM(names, 0), PyTuple_GET_ITEM(names, 1), str_id,
                            PyTuple_GET_ITEM(names, 2), PyTuple_GET_ITEM(names, 3)};
    for (int k = 0; k < READS; k++) {
        PyObject *name = Py_NewRef(all[k]);
        if (PyUnicode_CheckExact(name)) {
            PyUnicode_InternInPlace(&name);   /* the type cache keys on interned names */
        }
        reader->names[k] = name;
    }
    return 0;
}

static void
reader_free(Reader *reader)
{
    for (int n = 0; n < RESOLVED; n++) {
        resolved_clear(&reader->cache[n]);
    }
    for (int k = 0; k < READS; k++) {
        Py_CLEAR(reader->names[k]);
    }
}

static inline int
tag_valid(PyTypeObject *type, unsigned int tag)
{
#ifdef Py_TPFLAGS_VALID_VERSION_TAG
    if (!(type->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG)) {
        return 0;
    }
#endif
    return tag != 0 && type->tp_version_tag == tag;
}

/* How to read each name of ``type``'s instances now, into ``entry`` (the entry's class is left NULL,
 * so that every read goes through getattr, where none can be cached). The entry it replaces is
 * released last: that release may run code, which at worst changes a class, and so its tag. */
static void
resolve(Reader *reader, Resolved *entry, PyTypeObject *type)
{
    Resolved found_reads;
    memset(&found_reads, 0, sizeof(found_reads));
    unsigned int tag = 0;
    if (type->tp_getattro == PyObject_GenericGetAttr) {
        for (int k = 0; k < READS; k++) {
            PyObject *name = reader->names[k];
            if (!PyUnicode_CheckExact(name)) {
                continue;
            }
            PyObject *found = _PyType_Lookup(type, name);   /* borrowed; never sets an error */
            if (k == 0) {
                tag = type->tp_version_tag;   /* given by the lookup: any change after it makes another */
            }
            if (found == NULL) {
                continue;
            }
            if (Py_IS_TYPE(found, &PyMemberDescr_Type)) {
                PyMemberDescrObject *member = (PyMemberDescrObject *)found;
                PyMemberDef *def = member->d_member;
                /* Only an object slot of this class's own layout (a descriptor copied into an unrelated
                 * class refuses the instance in its __get__: that read stays generic), never an audited one. */
                if ((def->type == T_OBJECT_EX || def->type == T_OBJECT) && !(def->flags & READ_RESTRICTED)
                    && PyType_IsSubtype(type, member->d_common.d_type)) {
                    found_reads.reads[k].how = READ_SLOT;
                    found_reads.reads[k].offset = def->offset;
                    continue;
                }
            }
            PyTypeObject *kind = Py_TYPE(found);
            if (kind->tp_descr_get != NULL && kind->tp_descr_set != NULL) {   /* a data descriptor: getattr's first */
                found_reads.reads[k].how = READ_DESCRIPTOR;
                found_reads.reads[k].descriptor = Py_NewRef(found);
            }
        }
    }
    Resolved old = *entry;
    if (tag_valid(type, tag)) {
        found_reads.type = (PyTypeObject *)Py_NewRef((PyObject *)type);
        found_reads.tag = tag;
        *entry = found_reads;
    } else {
        *entry = (Resolved){0};
        resolved_clear(&found_reads);
    }
    resolved_clear(&old);
}

static inline Resolved *
resolved_for(Reader *reader, PyTypeObject *type)
{
    for (int n = 0; n < RESOLVED; n++) {
        if (reader->cache[n].type == type && tag_valid(type, reader->cache[n].tag)) {
            return &reader->cache[n];
        }
    }
    return NULL;
}

/* ``entity``'s attribute ``k`` (a new reference), as PyObject_GetAttr would return it. */
static PyObject *
read_attribute(Reader *reader, PyObject *entity, int k)
{
    PyTypeObject *type = Py_TYPE(entity);
    Resolved *entry = resolved_for(reader, type);
    if (entry == NULL) {
        resolve(reader, &reader->cache[reader->next], type);
        reader->next = (reader->next + 1) % RESOLVED;
        entry = resolved_for(reader, type);   /* still none: a class whose reads cannot be cached */
        if (entry == NULL) {
            return PyObject_GetAttr(entity, reader->names[k]);
        }
    }
    Read *read = &entry->reads[k];
    if (read->how == READ_SLOT) {
        PyObject *value = *(PyObject **)((char *)entity + read->offset);
        if (value != NULL) {
            return Py_NewRef(value);
        }
    } else if (read->how == READ_DESCRIPTOR) {
        PyObject *descriptor = Py_NewRef(read->descriptor);   /* the call may re-resolve this entry */
        PyObject *value = Py_TYPE(descriptor)->tp_descr_get(descriptor, entity, (PyObject *)type);
        Py_DECREF(descriptor);
        return value;
    }
    return PyObject_GetAttr(entity, reader->names[k]);
}

static PyObject *
spatial_gather(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "gather(entities, names, x, y, ids, looks, hitboxes, kinds) takes 8 arguments");
        return NULL;
    }
    PyObject *names = args[1];
    if (!PyTuple_Check(names) || PyTuple_GET_SIZE(names) != 4 || !PyUnicode_Check(PyTuple_GET_ITEM(names, 0))
        || !PyUnicode_Check(PyTuple_GET_ITEM(names, 1)) || !PyUnicode_Check(PyTuple_GET_ITEM(names, 2))
        || !PyUnicode_Check(PyTuple_GET_ITEM(names, 3))) {
        PyErr_SetString(PyExc_TypeError, "gather: names must be a tuple of 4 strings (x, y, look, hitbox)");
        return NULL;
    }
    /* A tuple of our own: code run by a property cannot shorten what we walk. */
    PyObject *entities = PySequence_Tuple(args[0]);
    if (entities == NULL) {
        return NULL;
    }
    Py_INCREF(names);
    Py_ssize_t count = PyTuple_GET_SIZE(entities);
    PyObject *result = NULL;
    Reader reader;
    reader_init(&reader, names);
    Distinct looks, hitboxes, kinds;
    int ready = distinct_init(&looks) | distinct_init(&hitboxes) | distinct_init(&kinds);
    Py_buffer xs, ys, ids, look_index, hitbox_index, kind_index;
    int held = 0;
    if (ready < 0) {
        goto done;
    }
    if (get_buffer(args[2], &xs, 'd', 8, count, 1, "gather: x") < 0) {
        goto done;
    }
    held = 1;
    if (get_buffer(args[3], &ys, 'd', 8, count, 1, "gather: y") < 0) {
        goto done;
    }
    held = 2;
    if (get_buffer(args[4], &ids, 'q', 8, count, 1, "gather: ids") < 0) {
        goto done;
    }
    held = 3;
    if (get_buffer(args[5], &look_index, 'i', 4, count, 1, "gather: looks") < 0) {
        goto done;
    }
    held = 4;
    if (get_buffer(args[6], &hitbox_index, 'i', 4, count, 1, "gather: hitboxes") < 0) {
        goto done;
    }
    held = 5;
    if (get_buffer(args[7], &kind_index, 'i', 4, count, 1, "gather: kinds") < 0) {
        goto done;
    }
    held = 6;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *entity = PyTuple_GET_ITEM(entities, i);
        double x, y;
        int32_t look, hitbox, kind;
        long long id;
        /* Each read may run Python code; the values land in buffers we hold and the tuple keeps
         * the entity alive, so nothing read before can go stale. */
        PyObject *value = read_attribute(&reader, entity, 0);
        if (value == NULL) {
            goto done;
        }
        int bad = position(entity, value, "x", &x);
        Py_DECREF(value);
        if (bad) {
            goto done;
        }
        value = read_attribute(&reader, entity, 1);
        if (value == NULL) {
            goto done;
        }
        bad = position(entity, value, "y", &y);
        Py_DECREF(value);
        if (bad) {
            goto done;
        }
        value = read_attribute(&reader, entity, 2);
        if (value == NULL) {
            goto done;
        }
        if (!PyLong_Check(value)) {
            PyErr_Format(PyExc_TypeError, "%.200s's id is a %.200s, not an int (only spawned entities collide)",
                         short_name(Py_TYPE(entity)), short_name(Py_TYPE(value)));
            Py_DECREF(value);
            goto done;
        }
        id = PyLong_AsLongLong(value);
        Py_DECREF(value);
        if (id == -1 && PyErr_Occurred()) {
            goto done;
        }
        value = read_attribute(&reader, entity, 3);
        if (value == NULL) {
            goto done;
        }
        bad = distinct(&looks, value, &look);
        Py_DECREF(value);
        if (bad) {
            goto done;
        }
        value = read_attribute(&reader, entity, 4);
        if (value == NULL) {
            goto done;
        }
        bad = distinct(&hitboxes, value, &hitbox);
        Py_DECREF(value);
        if (bad) {
            goto done;
        }
        if (distinct(&kinds, (PyObject *)Py_TYPE(entity), &kind) < 0) {
            goto done;
        }
        ((double *)xs.buf)[i] = x;
        ((double *)ys.buf)[i] = y;
        ((int64_t *)ids.buf)[i] = (int64_t)id;
        ((int32_t *)look_index.buf)[i] = look;
        ((int32_t *)hitbox_index.buf)[i] = hitbox;
        ((int32_t *)kind_index.buf)[i] = kind;
    }
    result = PyTuple_Pack(3, looks.found, hitboxes.found, kinds.found);
done:
    if (held >= 6) PyBuffer_Release(&kind_index);
    if (held >= 5) PyBuffer_Release(&hitbox_index);
    if (held >= 4) PyBuffer_Release(&look_index);
    if (held >= 3) PyBuffer_Release(&ids);
    if (held >= 2) PyBuffer_Release(&ys);
    if (held >= 1) PyBuffer_Release(&xs);
    distinct_free(&kinds);
    distinct_free(&hitboxes);
    distinct_free(&looks);
    reader_free(&reader);
    Py_DECREF(names);
    Py_DECREF(entities);
    return result;
}

/* -- Table -------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *entities;      /* tuple, sorted by id */
    Py_ssize_t count;
    int64_t *ids;
    double *x, *y, *half_width, *half_height;
    unsigned char *boxed;
} TableObject;

static PyTypeObject TableType;

/* Whether a table is still whole: the collector may have cleared one in a cycle (its entities
 * gone) while a finalizer of the cycle still holds it. */
static int
table_cleared(const TableObject *table)
{
    if (table == NULL || table->entities == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "this collision table was cleared by the garbage collector");
        return 1;
    }
    return 0;
}

static int
table_traverse(TableObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->entities);
    return 0;
}

static int
table_clear(TableObject *self)
{
    Py_CLEAR(self->entities);
    return 0;
}

static void
table_dealloc(TableObject *self)
{
    PyObject_GC_UnTrack(self);
    table_clear(self);
    PyMem_Free(self->ids);
    PyMem_Free(self->x);
    PyMem_Free(self->y);
    PyMem_Free(self->half_width);
    PyMem_Free(self->half_height);
    PyMem_Free(self->boxed);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
table_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *entities_in, *ids, *x, *y, *half_width, *half_height, *boxed;
    static char *keywords[] = {"entities", "ids", "x", "y", "half_width", "half_height", "boxed", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOO:Table", keywords, &entities_in, &ids, &x, &y,
                                     &half_width, &half_height, &boxed)) {
        return NULL;
    }
    PyObject *entities = PySequence_Tuple(entities_in);
    if (entities == NULL) {
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(entities);
    TableObject *self = (TableObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        Py_DECREF(entities);
        return NULL;
    }
    self->entities = entities;
    self->count = count;
    if ((self->ids = copy_buffer(ids, 'q', 8, count, "Table: ids")) == NULL
        || (self->x = copy_buffer(x, 'd', 8, count, "Table: x")) == NULL
        || (self->y = copy_buffer(y, 'd', 8, count, "Table: y")) == NULL
        || (self->half_width = copy_buffer(half_width, 'd', 8, count, "Table: half_width")) == NULL
        || (self->half_height = copy_buffer(half_height, 'd', 8, count, "Table: half_height")) == NULL
        || (self->boxed = copy_buffer(boxed, '?', 1, count, "Table: boxed")) == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    for (Py_ssize_t i = 1; i < count; i++) {
        if (self->ids[i] <= self->ids[i - 1]) {
            PyErr_SetString(PyExc_ValueError, "Table: ids must be sorted and distinct");
            Py_DECREF(self);
            return NULL;
        }
    }
    return (PyObject *)self;
}

/* The slot holding ``entity`` (found by its id, then checked to be that very object), -1 if none,
 * -2 with an exception set. Reading ``id`` may run Python code: nothing is held across it. */
static Py_ssize_t
table_find(TableObject *self, PyObject *entity)
{
    PyObject *value = PyObject_GetAttr(entity, str_id);
    if (value == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();  /* no id: not in the table (the caller says what it should have been) */
            return -1;
        }
        return -2;
    }
    if (!PyLong_Check(value)) {
        Py_DECREF(value);
        return -1;
    }
    int overflow = 0;
    long long id = PyLong_AsLongLongAndOverflow(value, &overflow);
    Py_DECREF(value);
    if (id == -1 && PyErr_Occurred()) {
        return -2;
    }
    if (overflow) {
        return -1;
    }
    Py_ssize_t low = 0, high = self->count;
    while (low < high) {
        Py_ssize_t middle = low + (high - low) / 2;
        if (self->ids[middle] < (int64_t)id) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    if (low < self->count && self->ids[low] == (int64_t)id && PyTuple_GET_ITEM(self->entities, low) == entity) {
        return low;
    }
    return -1;
}

static PyObject *
table_box(TableObject *self, PyObject *entity)
{
    if (table_cleared(self)) {
        return NULL;
    }
    Py_ssize_t slot = table_find(self, entity);
    if (slot == -2) {
        return NULL;
    }
    if (slot < 0) {
        Py_RETURN_FALSE;
    }
    if (!self->boxed[slot]) {
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(dddd)", self->x[slot], self->y[slot], self->half_width[slot], self->half_height[slot]);
}

static Py_ssize_t
table_length(TableObject *self)
{
    return self->count;
}

static PyObject *
table_get_entities(TableObject *self, void *closure)
{
    if (table_cleared(self)) {
        return NULL;
    }
    return Py_NewRef(self->entities);
}

static PyMethodDef table_methods[] = {
    {"box", (PyCFunction)table_box, METH_O,
     "box(entity)\n--\n\n(x, y, half width, half height) of ``entity`` here; None if it has no box; False if it is "
     "not in this table."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef table_getset[] = {
    {"entities", (getter)table_get_entities, NULL, "The entities, sorted by id (a tuple).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods table_as_sequence = {
    .sq_length = (lenfunc)table_length,
};

PyDoc_STRVAR(table_doc,
"Table(entities, ids, x, y, half_width, half_height, boxed)\n--\n\n"
"The boxes of one tick's entities, sorted by id, copied into memory of its own (see engine.spatial).");

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine._spatial.Table",
    .tp_basicsize = sizeof(TableObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = table_doc,
    .tp_new = table_new,
    .tp_dealloc = (destructor)table_dealloc,
    .tp_traverse = (traverseproc)table_traverse,
    .tp_clear = (inquiry)table_clear,
    .tp_methods = table_methods,
    .tp_getset = table_getset,
    .tp_as_sequence = &table_as_sequence,
};

/* -- Grid --------------------------------------------------------------------------------- */

typedef struct {
    double cell;
    int dense;
    int64_t x0, y0, columns, rows;   /* dense: the cells [x0, x0 + columns) x [y0, y0 + rows) */
    Py_ssize_t cells;                /* dense: columns * rows; sparse: how many keys */
    int64_t *keys;                   /* sparse: the cells' keys (x * 2**32 + y), sorted */
    int64_t *starts;                 /* cells + 1 offsets into members */
    int32_t *members;                /* table slots, cell by cell */
    Py_ssize_t size;                 /* how many members */
} Level;

typedef struct {
    PyObject_HEAD
    TableObject *table;
    int levels;
    Level level[MAX_LEVELS];
    int32_t *everywhere;             /* slots tested by every query (too big or too far for any cell) */
    Py_ssize_t everywhere_size;
    Py_ssize_t size;                 /* members of every level, and everywhere */
    long pending;                    /* levels not built yet (0: built): until then every slot is everywhere */
    Py_ssize_t budget;               /* slots the queries may still test one by one before the levels are built */
} GridObject;

static PyTypeObject GridType;

static int
grid_traverse(GridObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->table);
    return 0;
}

static int
grid_clear(GridObject *self)
{
    Py_CLEAR(self->table);
    return 0;
}

static void
grid_dealloc(GridObject *self)
{
    PyObject_GC_UnTrack(self);
    grid_clear(self);
    for (int n = 0; n < self->levels; n++) {
        PyMem_Free(self->level[n].keys);
        PyMem_Free(self->level[n].starts);
        PyMem_Free(self->level[n].members);
    }
    PyMem_Free(self->everywhere);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Slots must name rows of the table. */
static int
check_slots(const int32_t *slots, Py_ssize_t size, Py_ssize_t count, const char *what)
{
    for (Py_ssize_t i = 0; i < size; i++) {
        if (slots[i] < 0 || slots[i] >= count) {
            PyErr_Format(PyExc_ValueError, "Grid: %s holds slot %d, outside the table's %zd", what, (int)slots[i],
                         count);
            return -1;
        }
    }
    return 0;
}

static int
read_level(GridObject *self, Level *level, PyObject *spec)
{
    PyObject *keys, *starts, *members;
    int dense;
    long long x0, y0, columns, rows;
    if (!PyTuple_Check(spec)) {
        PyErr_SetString(PyExc_TypeError, "Grid: a level is a tuple (cell, dense, x0, y0, columns, rows, keys, starts, "
                                         "members)");
        return -1;
    }
    if (!PyArg_ParseTuple(spec, "dpLLLLOOO:Grid level", &level->cell, &dense, &x0, &y0, &columns, &rows, &keys,
                          &starts, &members)) {
        return -1;
    }
    level->dense = dense;
    level->x0 = x0;
    level->y0 = y0;
    level->columns = columns;
    level->rows = rows;
    if (!(level->cell > 0.0) || !isfinite(level->cell)) {
        PyErr_SetString(PyExc_ValueError, "Grid: a level's cell must be a finite number above 0");
        return -1;
    }
    Py_ssize_t size, cells;
    if (dense) {
        if (columns < 1 || rows < 1 || columns > 1 << 24 || rows > 1 << 24 || columns * rows > ((int64_t)1 << 26)
            || llabs(x0) > (1LL << 31) || llabs(y0) > (1LL << 31)) {
            PyErr_SetString(PyExc_ValueError, "Grid: a dense level's columns and rows must be from 1 to 2**24, "
                                              "their product at most 2**26, its origin within 2**31");
            return -1;
        }
        cells = (Py_ssize_t)(columns * rows);
    } else {
        if ((level->keys = copy_all(keys, 'q', 8, &cells, "Grid: keys")) == NULL) {
            return -1;
        }
        for (Py_ssize_t i = 1; i < cells; i++) {
            if (level->keys[i] <= level->keys[i - 1]) {
                PyErr_SetString(PyExc_ValueError, "Grid: keys must be sorted and distinct");
                return -1;
            }
        }
    }
    level->cells = cells;
    if ((level->starts = copy_buffer(starts, 'q', 8, cells + 1, "Grid: starts")) == NULL
        || (level->members = copy_all(members, 'i', 4, &size, "Grid: members")) == NULL) {
        return -1;
    }
    level->size = size;
    if (level->starts[0] != 0 || level->starts[cells] != size) {
        PyErr_SetString(PyExc_ValueError, "Grid: starts must run from 0 to the number of members");
        return -1;
    }
    for (Py_ssize_t i = 0; i < cells; i++) {
        if (level->starts[i + 1] < level->starts[i]) {
            PyErr_SetString(PyExc_ValueError, "Grid: starts must not decrease");
            return -1;
        }
    }
    return check_slots(level->members, size, self->table->count, "a level");
}

static PyObject *
grid_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *table, *levels_in, *everywhere;
    static char *keywords[] = {"table", "levels", "everywhere", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!OO:Grid", keywords, &TableType, &table, &levels_in,
                                     &everywhere)) {
        return NULL;
    }
    PyObject *levels = PySequence_Tuple(levels_in);
    if (levels == NULL) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(levels) > MAX_LEVELS) {
        PyErr_Format(PyExc_ValueError, "Grid: at most %d levels", MAX_LEVELS);
        Py_DECREF(levels);
        return NULL;
    }
    GridObject *self = (GridObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        Py_DECREF(levels);
        return NULL;
    }
    self->table = (TableObject *)Py_NewRef(table);
    for (Py_ssize_t n = 0; n < PyTuple_GET_SIZE(levels); n++) {
        self->levels = (int)n + 1;  /* counted before it is read: dealloc frees what it allocated */
        if (read_level(self, &self->level[n], PyTuple_GET_ITEM(levels, n)) < 0) {
            Py_DECREF(levels);
            Py_DECREF(self);
            return NULL;
        }
        self->size += self->level[n].size;
    }
    Py_DECREF(levels);
    Py_ssize_t size = 0;
    if ((self->everywhere = copy_all(everywhere, 'i', 4, &size, "Grid: everywhere")) == NULL
        || check_slots(self->everywhere, size, self->table->count, "everywhere") < 0) {
        Py_DECREF(self);
        return NULL;
    }
    self->everywhere_size = size;
    self->size += size;
    return (PyObject *)self;
}

/* A growable list of slots (or pairs) in C memory. */
typedef struct {
    int32_t *items;
    Py_ssize_t size, capacity;
    int32_t inline_items[64];
} Slots;

static void
slots_init(Slots *slots)
{
    slots->items = slots->inline_items;
    slots->size = 0;
    slots->capacity = 64;
}

static void
slots_free(Slots *slots)
{
    if (slots->items != slots->inline_items) {
        PyMem_Free(slots->items);
    }
}

static int
slots_reserve(Slots *slots, Py_ssize_t more)
{
    if (slots->size + more <= slots->capacity) {
        return 0;
    }
    Py_ssize_t capacity = slots->capacity;
    while (capacity < slots->size + more) {
        if (capacity > PY_SSIZE_T_MAX / 8) {
            PyErr_NoMemory();
            return -1;
        }
        capacity *= 2;
    }
    int32_t *items = PyMem_Malloc((size_t)capacity * sizeof(int32_t));
    if (items == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(items, slots->items, (size_t)slots->size * sizeof(int32_t));
    slots_free(slots);
    slots->items = items;
    slots->capacity = capacity;
    return 0;
}

static int
slots_extend(Slots *slots, const int32_t *items, Py_ssize_t count)
{
    if (count <= 0) {
        return 0;
    }
    if (slots_reserve(slots, count) < 0) {
        return -1;
    }
    memcpy(slots->items + slots->size, items, (size_t)count * sizeof(int32_t));
    slots->size += count;
    return 0;
}

/* The sparse level's members in cell (x, y), by binary search of its keys. */
static int
sparse_cell(const Level *level, int64_t x, int64_t y, Slots *out)
{
    int64_t key = x * ((int64_t)1 << 32) + y;
    Py_ssize_t low = 0, high = level->cells;
    while (low < high) {
        Py_ssize_t middle = low + (high - low) / 2;
        if (level->keys[middle] < key) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    if (low < level->cells && level->keys[low] == key) {
        Py_ssize_t start = (Py_ssize_t)level->starts[low];
        return slots_extend(out, level->members + start, (Py_ssize_t)level->starts[low + 1] - start);
    }
    return 0;
}

/* Every slot that could hold a box reaching into [x0, x1] x [y0, y1] (centres within reach of it):
 * the members of the cells the range covers, level by level, then ``everywhere``. The same cells
 * as the pure path's ``PyGrid._candidates``, so the same candidates in the same order. */
static int build_pending(GridObject *self);

static int
candidates(GridObject *self, double x0, double x1, double y0, double y1, int near, Slots *out)
{
    if (self->pending) {
        /* Unbuilt, every slot is everywhere: a test of each (the answer is the same, the cells only
         * spare tests), until the queries have tested as many as building the cells costs. */
        if (self->budget <= 0) {
            if (build_pending(self) < 0) {
                return -1;
            }
        } else {
            self->budget -= self->everywhere_size;
        }
    }
    for (int n = 0; n < self->levels; n++) {
        const Level *level = &self->level[n];
        if (level->size == 0) {
            continue;
        }
        double cell = level->cell;
        double reach = cell * (near ? NEAR_REACH : REACH);
        double low_x = floor((x0 - reach) / cell), high_x = floor((x1 + reach) / cell);
        double low_y = floor((y0 - reach) / cell), high_y = floor((y1 + reach) / cell);
        if (isnan(low_x) || isnan(high_x) || isnan(low_y) || isnan(high_y)) {
            continue;  /* a box at NaN is nowhere */
        }
        /* Clamped to where cells can be: beyond, nobody (and no conversion to int overflows). */
        low_x = fmax(low_x, -CELL_BOUND);
        low_y = fmax(low_y, -CELL_BOUND);
        high_x = fmin(high_x, CELL_BOUND);
        high_y = fmin(high_y, CELL_BOUND);
        if (level->dense) {
            low_x = fmax(low_x, (double)level->x0);
            low_y = fmax(low_y, (double)level->y0);
            high_x = fmin(high_x, (double)(level->x0 + level->columns - 1));
            high_y = fmin(high_y, (double)(level->y0 + level->rows - 1));
            if (low_x > high_x || low_y > high_y) {
                continue;
            }
            for (int64_t x = (int64_t)low_x; x <= (int64_t)high_x; x++) {
                int64_t base = (x - level->x0) * level->rows - level->y0;
                int64_t first = (int64_t)low_y, last = (int64_t)high_y;
                Py_ssize_t start = (Py_ssize_t)level->starts[base + first];
                Py_ssize_t end = (Py_ssize_t)level->starts[base + last + 1];
                /* A column's cells are consecutive: one copy for the whole run. */
                if (slots_extend(out, level->members + start, end - start) < 0) {
                    return -1;
                }
            }
        } else {
            if (low_x > high_x || low_y > high_y) {
                continue;
            }
            if ((high_x - low_x + 1.0) * (high_y - low_y + 1.0) > (double)level->cells) {
                if (slots_extend(out, level->members, level->size) < 0) {
                    return -1;
                }
                continue;
            }
            for (int64_t x = (int64_t)low_x; x <= (int64_t)high_x; x++) {
                for (int64_t y = (int64_t)low_y; y <= (int64_t)high_y; y++) {
                    if (sparse_cell(level, x, y, out) < 0) {
                        return -1;
                    }
                }
            }
        }
    }
    return slots_extend(out, self->everywhere, self->everywhere_size);
}

static int
compare_slots(const void *a, const void *b)
{
    int32_t left = *(const int32_t *)a, right = *(const int32_t *)b;
    return (left > right) - (left < right);
}

static void
sort_slots(int32_t *items, Py_ssize_t size)
{
    if (size < 24) {
        for (Py_ssize_t i = 1; i < size; i++) {
            int32_t item = items[i];
            Py_ssize_t j = i;
            while (j > 0 && items[j - 1] > item) {
                items[j] = items[j - 1];
                j--;
            }
            items[j] = item;
        }
    } else {
        qsort(items, (size_t)size, sizeof(int32_t), compare_slots);
    }
}

/* The slots of boxed entities overlapping the box centred on (x, y), but ``skip``, sorted (by id):
 * kept in ``out`` from ``from`` on (candidates are tested in place). */
static int
overlapping_slots(GridObject *self, double x, double y, double half_width, double half_height,
                  Py_ssize_t skip, Slots *out)
{
    Py_ssize_t from = out->size;
    if (candidates(self, x - half_width, x + half_width, y - half_height, y + half_height, 0, out) < 0) {
        return -1;
    }
    const TableObject *table = self->table;
    Py_ssize_t kept = from;
    for (Py_ssize_t i = from; i < out->size; i++) {
        int32_t slot = out->items[i];
        if (table->boxed[slot] && slot != skip && fabs(table->x[slot] - x) < table->half_width[slot] + half_width
            && fabs(table->y[slot] - y) < table->half_height[slot] + half_height) {
            out->items[kept++] = slot;
        }
    }
    out->size = kept;
    sort_slots(out->items + from, kept - from);
    return 0;
}

/* The entities of ``slots`` as a new list. No Python code runs while it fills. */
static PyObject *
entities_of(const TableObject *table, const int32_t *slots, Py_ssize_t size)
{
    PyObject *found = PyList_New(size);
    if (found == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        PyList_SET_ITEM(found, i, Py_NewRef(PyTuple_GET_ITEM(table->entities, slots[i])));
    }
    return found;
}

static PyObject *
grid_overlapping_box(GridObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (table_cleared(self->table)) {
        return NULL;
    }
    if (nargs < 4 || nargs > 5) {
        PyErr_SetString(PyExc_TypeError, "overlapping_box(x, y, half_width, half_height, exclude=None)");
        return NULL;
    }
    double box[4];
    for (int n = 0; n < 4; n++) {
        if (!PyFloat_CheckExact(args[n])) {
            PyErr_SetString(PyExc_TypeError, "overlapping_box: x, y, half_width and half_height must be floats");
            return NULL;
        }
        box[n] = PyFloat_AS_DOUBLE(args[n]);
    }
    PyObject *exclude = nargs == 5 ? args[4] : Py_None;
    Py_ssize_t skip = -1;
    if (exclude != Py_None) {
        /* Found first: reading its id may run Python code, which the box numbers above survive. */
        skip = table_find(self->table, exclude);
        if (skip == -2) {
            return NULL;
        }
    }
    Slots found;
    slots_init(&found);
    PyObject *result = NULL;
    if (overlapping_slots(self, box[0], box[1], box[2], box[3], skip, &found) == 0) {
        result = entities_of(self->table, found.items, found.size);
    }
    slots_free(&found);
    return result;
}

static PyObject *
grid_overlapping(GridObject *self, PyObject *entity)
{
    if (table_cleared(self->table)) {
        return NULL;
    }
    /* Found first: reading the id may run Python code; afterwards nothing does until the list. */
    Py_ssize_t slot = table_find(self->table, entity);
    if (slot == -2) {
        return NULL;
    }
    if (slot == -1) {
        Py_RETURN_NONE;  /* not in this grid's table: the caller knows where else to look */
    }
    const TableObject *table = self->table;
    if (!table->boxed[slot]) {
        return PyList_New(0);
    }
    Slots found;
    slots_init(&found);
    PyObject *result = NULL;
    if (overlapping_slots(self, table->x[slot], table->y[slot], table->half_width[slot], table->half_height[slot],
                          slot, &found) == 0) {
        result = entities_of(table, found.items, found.size);
    }
    slots_free(&found);
    return result;
}

/* Whether math.hypot(dx, dy) <= radius, as the pure path asks it (-1: an error). */
static int
within(double dx, double dy, double radius)
{
    if (!(fabs(dx) <= radius && fabs(dy) <= radius)) {
        return 0;  /* hypot is never below either side: the same answer without the call */
    }
    PyObject *pair[2];
    pair[0] = PyFloat_FromDouble(dx);
    pair[1] = PyFloat_FromDouble(dy);
    if (pair[0] == NULL || pair[1] == NULL) {
        Py_XDECREF(pair[0]);
        Py_XDECREF(pair[1]);
        return -1;
    }
    PyObject *distance = PyObject_Vectorcall(hypot_function, pair, 2, NULL);
    Py_DECREF(pair[0]);
    Py_DECREF(pair[1]);
    if (distance == NULL) {
        return -1;
    }
    double value = PyFloat_AsDouble(distance);
    Py_DECREF(distance);
    if (value == -1.0 && PyErr_Occurred()) {
        return -1;
    }
    return value <= radius;
}

static PyObject *
grid_near(GridObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (table_cleared(self->table)) {
        return NULL;
    }
    if (nargs < 3 || nargs > 4 || !PyFloat_CheckExact(args[0]) || !PyFloat_CheckExact(args[1])
        || !PyFloat_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "near(x, y, radius, exclude=None) takes three floats");
        return NULL;
    }
    double x = PyFloat_AS_DOUBLE(args[0]), y = PyFloat_AS_DOUBLE(args[1]), radius = PyFloat_AS_DOUBLE(args[2]);
    Py_ssize_t skip = -1;
    if (nargs == 4 && args[3] != Py_None) {
        /* Found first: reading its id may run Python code, which the numbers above survive. */
        skip = table_find(self->table, args[3]);
        if (skip == -2) {
            return NULL;
        }
    }
    /* Held across the hypot calls: nothing they run can free the table. */
    TableObject *table = (TableObject *)Py_NewRef(self->table);
    Slots found;
    slots_init(&found);
    PyObject *result = NULL;
    if (candidates(self, x - radius, x + radius, y - radius, y + radius, 1, &found) < 0) {
        goto done;
    }
    Py_ssize_t kept = 0;
    for (Py_ssize_t i = 0; i < found.size; i++) {
        int32_t slot = found.items[i];
        if (slot == skip) {
            continue;  /* the asker: never its own neighbour */
        }
        int inside = within(table->x[slot] - x, table->y[slot] - y, radius);
        if (inside < 0) {
            goto done;
        }
        if (inside) {
            found.items[kept++] = slot;
        }
    }
    found.size = kept;
    sort_slots(found.items, kept);
    result = entities_of(table, found.items, kept);
done:
    slots_free(&found);
    Py_DECREF(table);
    return result;
}

static PyObject *
grid_members(GridObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (table_cleared(self->table)) {
        return NULL;
    }
    if (nargs != 4 || !PyFloat_CheckExact(args[2]) || !PyFloat_CheckExact(args[3])) {
        PyErr_SetString(PyExc_TypeError, "members(positions, count, half_width, half_height): positions a float32 "
                                         "buffer, count an int, the half sizes floats");
        return NULL;
    }
    Py_ssize_t count = PyLong_AsSsize_t(args[1]);
    if (count == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (count < 0) {
        PyErr_SetString(PyExc_ValueError, "members: count must be 0 or more");
        return NULL;
    }
    double half_width = PyFloat_AS_DOUBLE(args[2]), half_height = PyFloat_AS_DOUBLE(args[3]);
    Py_buffer view;
    if (get_buffer(args[0], &view, 'f', 4, 2 * count, 0, "members: positions") < 0) {
        return NULL;
    }
    /* Copied out before anything can run: the caller's array may change once we allocate. */
    float *positions = PyMem_Malloc(count > 0 ? (size_t)(2 * count) * sizeof(float) : 1);
    if (positions == NULL) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    if (count > 0) {
        memcpy(positions, view.buf, (size_t)(2 * count) * sizeof(float));
    }
    PyBuffer_Release(&view);
    Slots hits, owners;  /* hits[i] is a slot, owners[i] the member that hit it */
    slots_init(&hits);
    slots_init(&owners);
    PyObject *result = NULL, *members = NULL, *found = NULL;
    if (count > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "members: too many members");
        goto done;
    }
    for (Py_ssize_t member = 0; member < count; member++) {
        Py_ssize_t before = hits.size;
        if (overlapping_slots(self, (double)positions[2 * member], (double)positions[2 * member + 1], half_width,
                              half_height, -1, &hits) < 0
            || slots_reserve(&owners, hits.size - before) < 0) {
            goto done;
        }
        for (Py_ssize_t i = before; i < hits.size; i++) {
            owners.items[owners.size++] = (int32_t)member;
        }
    }
    members = PyBytes_FromStringAndSize(NULL, hits.size * (Py_ssize_t)sizeof(int64_t));
    if (members == NULL) {
        goto done;
    }
    int64_t *which = (int64_t *)PyBytes_AS_STRING(members);
    for (Py_ssize_t i = 0; i < owners.size; i++) {
        which[i] = owners.items[i];
    }
    found = entities_of(self->table, hits.items, hits.size);
    if (found == NULL) {
        goto done;
    }
    result = PyTuple_Pack(2, members, found);
done:
    Py_XDECREF(found);
    Py_XDECREF(members);
    slots_free(&owners);
    slots_free(&hits);
    PyMem_Free(positions);
    return result;
}

static Py_ssize_t
grid_length(GridObject *self)
{
    return self->size;
}

static PyMethodDef grid_methods[] = {
    {"overlapping", (PyCFunction)grid_overlapping, METH_O,
     "overlapping(entity)\n--\n\nThe entities whose boxes overlap ``entity``'s box in this grid's table, sorted by id; "
     "None if ``entity`` is not in the table."},
    {"overlapping_box", (PyCFunction)(void (*)(void))grid_overlapping_box, METH_FASTCALL,
     "overlapping_box(x, y, half_width, half_height, exclude=None)\n--\n\n"
     "The entities (but ``exclude``) whose boxes overlap the box centred on (x, y), sorted by id."},
    {"near", (PyCFunction)(void (*)(void))grid_near, METH_FASTCALL,
     "near(x, y, radius, exclude=None)\n--\n\n"
     "The entities (but ``exclude``) whose position is within ``radius`` of (x, y), sorted by id."},
    {"members", (PyCFunction)(void (*)(void))grid_members, METH_FASTCALL,
     "members(positions, count, half_width, half_height)\n--\n\n"
     "(member indices as int64 bytes, entities): every member box against the grid, by member then id."},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods grid_as_sequence = {
    .sq_length = (lenfunc)grid_length,
};

PyDoc_STRVAR(grid_doc,
"Grid(table, levels, everywhere)\n--\n\n"
"One kind's cells over a Table: levels of (cell, dense, x0, y0, columns, rows, keys, starts, members), and the "
"slots every query tests (see engine.spatial).");

/* The grid's levels as spatial.py's ``grid_levels`` returns them (arrays as bytes), and everywhere. */
static PyObject *
grid_get_levels(GridObject *self, void *closure)
{
    PyObject *levels = PyList_New(0);
    if (levels == NULL) {
        return NULL;
    }
    for (int n = 0; n < self->levels; n++) {
        const Level *level = &self->level[n];
        PyObject *spec = Py_BuildValue(
            "(dOLLLLy#y#y#)", level->cell, level->dense ? Py_True : Py_False, (long long)level->x0,
            (long long)level->y0, (long long)level->columns, (long long)level->rows,
            level->dense ? "" : (const char *)level->keys,
            level->dense ? (Py_ssize_t)0 : level->cells * (Py_ssize_t)sizeof(int64_t),
            (const char *)level->starts, (level->cells + 1) * (Py_ssize_t)sizeof(int64_t),
            (const char *)level->members, level->size * (Py_ssize_t)sizeof(int32_t));
        if (spec == NULL || PyList_Append(levels, spec) < 0) {
            Py_XDECREF(spec);
            Py_DECREF(levels);
            return NULL;
        }
        Py_DECREF(spec);
    }
    return Py_BuildValue("(Ny#)", levels, self->everywhere_size > 0 ? (const char *)self->everywhere : "",
                         self->everywhere_size * (Py_ssize_t)sizeof(int32_t));
}

static PyObject *
grid_get_table(GridObject *self, void *closure)
{
    if (table_cleared(self->table)) {
        return NULL;
    }
    return Py_NewRef((PyObject *)self->table);
}

static PyGetSetDef grid_getset[] = {
    {"table", (getter)grid_get_table, NULL, "The Table this grid's slots name.", NULL},
    {"levels", (getter)grid_get_levels, NULL,
     "(levels, everywhere): each level as (cell, dense, x0, y0, columns, rows, keys, starts, members), its "
     "arrays as bytes, and the slots every query tests, as bytes.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject GridType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine._spatial.Grid",
    .tp_basicsize = sizeof(GridObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = grid_doc,
    .tp_new = grid_new,
    .tp_dealloc = (destructor)grid_dealloc,
    .tp_traverse = (traverseproc)grid_traverse,
    .tp_clear = (inquiry)grid_clear,
    .tp_methods = grid_methods,
    .tp_getset = grid_getset,
    .tp_as_sequence = &grid_as_sequence,
};


/* -- building a grid ---------------------------------------------------------------------- */

/* The k-th smallest of values[0, n) (0 <= k < n): quickselect, reordering values. No NaN here. */
static double
kth_smallest(double *values, Py_ssize_t n, Py_ssize_t k)
{
    Py_ssize_t low = 0, high = n - 1;
    while (low < high) {
        double pivot = values[low + (high - low) / 2];
        Py_ssize_t i = low, j = high;
        while (i <= j) {
            while (values[i] < pivot) i++;
            while (values[j] > pivot) j--;
            if (i <= j) {
                double swap = values[i];
                values[i] = values[j];
                values[j] = swap;
                i++;
                j--;
            }
        }
        if (k <= j) {
            high = j;
        } else if (k >= i) {
            low = i;
        } else {
            break;
        }
    }
    return values[k];
}

typedef struct {
    int64_t key;
    Py_ssize_t order;
} Keyed;

static int
compare_keyed(const void *a, const void *b)
{
    const Keyed *left = a, *right = b;
    if (left->key != right->key) {
        return left->key < right->key ? -1 : 1;
    }
    return (left->order > right->order) - (left->order < right->order);
}

/* One level of ``slots`` (all placeable, their cells within 2**30): spatial.py's ``_level``, in C.
 * Members by cell, then by their order in ``slots`` (numpy's stable argsort). */
static int
build_level(Level *level, const int32_t *slots, Py_ssize_t n, const double *x, const double *y, double cell)
{
    int64_t *cells_x = PyMem_Malloc((size_t)n * sizeof(int64_t));
    int64_t *cells_y = PyMem_Malloc((size_t)n * sizeof(int64_t));
    int result = -1;
    if (cells_x == NULL || cells_y == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t x0 = INT64_MAX, y0 = INT64_MAX, x1 = INT64_MIN, y1 = INT64_MIN;
    for (Py_ssize_t i = 0; i < n; i++) {
        cells_x[i] = (int64_t)floor(x[slots[i]] / cell);
        cells_y[i] = (int64_t)floor(y[slots[i]] / cell);
        if (cells_x[i] < x0) x0 = cells_x[i];
        if (cells_x[i] > x1) x1 = cells_x[i];
        if (cells_y[i] < y0) y0 = cells_y[i];
        if (cells_y[i] > y1) y1 = cells_y[i];
    }
    int64_t columns = x1 - x0 + 1, rows = y1 - y0 + 1;
    level->cell = cell;
    level->size = n;
    level->members = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    if (level->members == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (columns * rows <= (4 * (int64_t)n > 64 ? 4 * (int64_t)n : 64)) {
        Py_ssize_t cells = (Py_ssize_t)(columns * rows);
        level->dense = 1;
        level->x0 = x0;
        level->y0 = y0;
        level->columns = columns;
        level->rows = rows;
        level->cells = cells;
        level->starts = PyMem_Calloc((size_t)cells + 1, sizeof(int64_t));
        if (level->starts == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            level->starts[(cells_x[i] - x0) * rows + (cells_y[i] - y0) + 1]++;
        }
        for (Py_ssize_t c = 0; c < cells; c++) {
            level->starts[c + 1] += level->starts[c];
        }
        /* A counting sort, stable: each cell's members in their order. */
        int64_t *cursor = PyMem_Malloc((size_t)cells * sizeof(int64_t));
        if (cursor == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        memcpy(cursor, level->starts, (size_t)cells * sizeof(int64_t));
        for (Py_ssize_t i = 0; i < n; i++) {
            int64_t index = (cells_x[i] - x0) * rows + (cells_y[i] - y0);
            level->members[cursor[index]++] = slots[i];
        }
        PyMem_Free(cursor);
    } else {
        Keyed *keyed = PyMem_Malloc((size_t)n * sizeof(Keyed));
        if (keyed == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            keyed[i].key = cells_x[i] * ((int64_t)1 << 32) + cells_y[i];
            keyed[i].order = i;
        }
        qsort(keyed, (size_t)n, sizeof(Keyed), compare_keyed);
        Py_ssize_t cells = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (i == 0 || keyed[i].key != keyed[i - 1].key) {
                cells++;
            }
        }
        level->dense = 0;
        level->x0 = level->y0 = 0;
        level->columns = level->rows = 1;
        level->cells = cells;
        level->keys = PyMem_Malloc((size_t)(cells > 0 ? cells : 1) * sizeof(int64_t));
        level->starts = PyMem_Malloc((size_t)(cells + 1) * sizeof(int64_t));
        if (level->keys == NULL || level->starts == NULL) {
            PyMem_Free(keyed);
            PyErr_NoMemory();
            goto done;
        }
        Py_ssize_t cell_index = -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (i == 0 || keyed[i].key != keyed[i - 1].key) {
                cell_index++;
                level->keys[cell_index] = keyed[i].key;
                level->starts[cell_index] = i;
            }
            level->members[i] = slots[keyed[i].order];
        }
        level->starts[cells] = n;
        PyMem_Free(keyed);
    }
    result = 0;
done:
    PyMem_Free(cells_x);
    PyMem_Free(cells_y);
    return result;
}

#define FAR 1073741824.0  /* 2**30 cells: spatial.py's FAR */

/* spatial.py's ``grid_levels`` over a table, in C, to the same levels: level 0's cells twice
 * the 75th percentile (by rank) of the boxes, at least 8; bigger boxes up a level of cells at
 * least four times larger; what no level takes, everywhere. */
/* Release a grid's levels and everywhere, leaving it with none. */
static void
free_levels(GridObject *grid)
{
    for (int n = 0; n < grid->levels; n++) {
        PyMem_Free(grid->level[n].keys);
        PyMem_Free(grid->level[n].starts);
        PyMem_Free(grid->level[n].members);
    }
    memset(grid->level, 0, sizeof(grid->level));
    grid->levels = 0;
    PyMem_Free(grid->everywhere);
    grid->everywhere = NULL;
    grid->everywhere_size = 0;
    grid->size = 0;
}

/* The levels of ``slots`` (at most ``most``) and what none holds, into ``grid``, which has none:
 * spatial.py's ``grid_levels``. On failure (memory) the grid is left with none. Calls no Python code. */
static int
fill_levels(GridObject *grid, const TableObject *table, const int32_t *slots, Py_ssize_t n, long most)
{
    double *extent = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    double *distance = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    double *sized = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    int32_t *remaining = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    int32_t *chosen = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    unsigned char *fits = PyMem_Malloc((size_t)(n > 0 ? n : 1));
    int result = -1;
    if (extent == NULL || distance == NULL || sized == NULL || remaining == NULL || chosen == NULL || fits == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t slot = slots[i];
        double half_width = table->half_width[slot], half_height = table->half_height[slot];
        double widest = isnan(half_width) || isnan(half_height) ? NAN : fmax(half_width, half_height);
        extent[i] = table->boxed[slot] ? 2.0 * widest : 0.0;
        double ax = fabs(table->x[slot]), ay = fabs(table->y[slot]);
        distance[i] = isnan(ax) || isnan(ay) ? NAN : fmax(ax, ay);
        remaining[i] = (int32_t)i;
    }
    Py_ssize_t left = n;
    double cell = 0.0;
    for (long round = 0; round < most && left > 0; round++) {
        Py_ssize_t count = 0, placeable = 0;
        for (Py_ssize_t r = 0; r < left; r++) {
            double size = extent[remaining[r]];
            if (size < INFINITY && distance[remaining[r]] < INFINITY) {
                placeable++;
                if (size > 0.0) {
                    sized[count++] = size;
                }
            }
        }
        if (count == 0 && placeable == 0) {
            break;
        }
        double typical = count > 0 ? kth_smallest(sized, count, (count - 1) * 3 / 4) : 0.0;
        cell = cell == 0.0 ? fmax(8.0, 2.0 * typical) : fmax(4.0 * cell, 2.0 * typical);
        if (!isfinite(cell)) {
            break;
        }
        Py_ssize_t taken = 0, kept = 0;
        for (Py_ssize_t r = 0; r < left; r++) {
            Py_ssize_t i = remaining[r];
            double size = extent[i];
            fits[r] = size < INFINITY && distance[i] < INFINITY && size <= cell && distance[i] < cell * FAR;
            if (fits[r]) {
                chosen[taken++] = slots[i];
            }
        }
        if (taken > 0) {
            grid->levels++;
            if (build_level(&grid->level[grid->levels - 1], chosen, taken, table->x, table->y, cell) < 0) {
                goto done;
            }
            grid->size += taken;
        }
        for (Py_ssize_t r = 0; r < left; r++) {
            if (!fits[r]) {
                remaining[kept++] = remaining[r];
            }
        }
        left = kept;
    }
    grid->everywhere = PyMem_Malloc((size_t)(left > 0 ? left : 1) * sizeof(int32_t));
    if (grid->everywhere == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t r = 0; r < left; r++) {
        grid->everywhere[r] = slots[remaining[r]];
    }
    grid->everywhere_size = left;
    grid->size += left;
    result = 0;
done:
    if (result < 0) {
        free_levels(grid);
    }
    PyMem_Free(fits);
    PyMem_Free(chosen);
    PyMem_Free(remaining);
    PyMem_Free(sized);
    PyMem_Free(distance);
    PyMem_Free(extent);
    return result;
}

/* The levels of a grid built unbuilt (``build``'s budget), now: from its slots, which are all
 * everywhere until then, in the order given, so the same levels as ``build`` without a budget.
 * Built aside and swapped in whole: on failure the grid stays as it was, unbuilt. */
static int
build_pending(GridObject *self)
{
    GridObject built;
    memset(&built, 0, sizeof(built));
    if (fill_levels(&built, self->table, self->everywhere, self->everywhere_size, self->pending) < 0) {
        return -1;
    }
    PyMem_Free(self->everywhere);
    memcpy(self->level, built.level, sizeof(self->level));
    self->levels = built.levels;
    self->everywhere = built.everywhere;
    self->everywhere_size = built.everywhere_size;
    self->size = built.size;
    self->pending = 0;
    self->budget = 0;
    return 0;
}

static PyObject *
spatial_build(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 3 || nargs > 4 || !PyObject_TypeCheck(args[0], &TableType)) {
        PyErr_SetString(PyExc_TypeError, "build(table, slots, levels, budget=0): table a Table, slots int32, levels "
                                         "and budget ints");
        return NULL;
    }
    long most = PyLong_AsLong(args[2]);
    if (most == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (most < 0 || most > MAX_LEVELS) {
        PyErr_Format(PyExc_ValueError, "build: levels must be from 0 to %d", MAX_LEVELS);
        return NULL;
    }
    Py_ssize_t budget = 0;
    if (nargs == 4) {
        budget = PyLong_AsSsize_t(args[3]);
        if (budget == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (budget < 0) {
            PyErr_SetString(PyExc_ValueError, "build: budget must be 0 or more");
            return NULL;
        }
    }
    TableObject *table = (TableObject *)args[0];
    if (table_cleared(table)) {
        return NULL;
    }
    Py_ssize_t n = 0;
    int32_t *slots = copy_all(args[1], 'i', 4, &n, "build: slots");
    if (slots == NULL) {
        return NULL;
    }
    if (check_slots(slots, n, table->count, "slots") < 0) {
        PyMem_Free(slots);
        return NULL;
    }
    GridObject *grid = (GridObject *)GridType.tp_alloc(&GridType, 0);
    if (grid == NULL) {
        PyMem_Free(slots);
        return NULL;
    }
    grid->table = (TableObject *)Py_NewRef((PyObject *)table);
    if (budget > 0 && most > 0 && n > 0) {
        /* Unbuilt: every slot everywhere (the copy is the grid's), the levels built when the budget is spent. */
        grid->everywhere = slots;
        grid->everywhere_size = grid->size = n;
        grid->pending = most;
        grid->budget = budget;
        return (PyObject *)grid;
    }
    int failed = fill_levels(grid, table, slots, n, most);
    PyMem_Free(slots);
    if (failed) {
        Py_DECREF(grid);
        return NULL;
    }
    return (PyObject *)grid;
}

/* -- the module ---------------------------------------------------------------------------- */

static PyMethodDef spatial_methods[] = {
    {"gather", (PyCFunction)(void (*)(void))spatial_gather, METH_FASTCALL,
     "gather(entities, names, x, y, ids, looks, hitboxes, kinds)\n--\n\n"
     "One walk over the entities: x and y (the attributes names[0], names[1]) into the float64 buffers x and y, ids "
     "into the int64 buffer ids, and each entity's look (names[2]), hitbox (names[3]) and class as int32 indices "
     "into the lists of distinct objects returned: (looks, hitboxes, classes)."},
    {"build", (PyCFunction)(void (*)(void))spatial_build, METH_FASTCALL,
     "build(table, slots, levels, budget=0)\n--\n\nA Grid of the table's slots (int32, ascending) in at most "
     "``levels`` levels: the levels spatial.grid_levels computes, computed in C. With a budget, the levels are "
     "built only once the grid's queries have tested that many slots one by one (the same answers: until "
     "then every slot is tested, as if everywhere)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef spatial_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "engine._spatial",
    .m_doc = "The compiled half of the collision grid: the tick's gather and the queries (see engine.spatial).",
    .m_size = -1,
    .m_methods = spatial_methods,
};

PyMODINIT_FUNC
PyInit__spatial(void)
{
    if (PyType_Ready(&TableType) < 0 || PyType_Ready(&GridType) < 0) {
        return NULL;
    }
    PyObject *math = PyImport_ImportModule("math");
    if (math == NULL) {
        return NULL;
    }
    hypot_function = PyObject_GetAttrString(math, "hypot");
    Py_DECREF(math);
    str_id = PyUnicode_InternFromString("id");
    if (hypot_function == NULL || str_id == NULL) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&spatial_module);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddObject(module, "Table", Py_NewRef((PyObject *)&TableType)) < 0) {
        Py_DECREF(&TableType);
        Py_DECREF(module);
        return NULL;
    }
    if (PyModule_AddObject(module, "Grid", Py_NewRef((PyObject *)&GridType)) < 0) {
        Py_DECREF(&GridType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
