/* engine.buffering._core: the compiled core of the Double Buffer (see buffers.py).
 *
 * The write barrier and the tick's per-entity bookkeeping, done where they are cheapest.
 * ``Barrier`` is the base type of the entities' base class: its ``tp_setattro`` sees every
 * write to an entity, lets a plain attribute through, and applies the Double Buffer's rule
 * to a buffered field (the updating entity's own write is pending; another entity's update
 * is refused at that line; a system's write is committed at once), reading the world's
 * ``TickState``. The world still runs
 *
 *     for entity in settler:
 *         entity.update(world)
 *
 * so the update stays a cheap Python-to-Python call, and the settler's next step does the
 * rest in C: it settles the entity that has just updated (if it wrote, keeps what it wrote
 * pending and puts its committed values back), skips despawned entities and names the next
 * one in the state. The commit and the record of previous values are plain C loops over
 * the entities that moved.
 *
 * Every slot is read at a fixed offset of the pure-Python base class ``BufferSlots``
 * (its ``__slots__``), found once by ``configure()``. Each function checks that an
 * object is an instance of that class before it touches a slot, so a stray object in
 * a list raises ``TypeError`` instead of reading memory it does not own.
 *
 * The semantics are those of the pure-Python path in buffers.py, line for line: the
 * differential test runs both on the same random worlds and compares everything.
 *
 * Every call that can run Python code (a layout getter, ``__eq__``, ``__bool__``, the
 * release of a value whose finalizer runs, any allocation that starts the collector and
 * its ``gc.callbacks``) may change every list, entity and tuple in reach. So: whatever
 * is used after such a call is held by a strong reference, lengths are read again after
 * it, and the commit is two passes, a check that never calls out and a commit that never
 * does (no allocation, no release that could free anything), so no list anyone can reach
 * ever holds a NULL and nothing needs undoing. References are released last, once the
 * state is consistent. tests/test_core_adversarial.py has a case for each rule and runs
 * under ASAN and ``PYTHONMALLOC=debug`` (.ci/sanitize).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>
#if PY_VERSION_HEX < 0x030B0000
#include <longintrepr.h>   /* an int's digits, read by the gather (included by Python.h from 3.11 on) */
#endif

enum {
    S_X, S_Y, S_ANGLE, S_ALIVE, S_MOTION_ONLY,
    S_BX, S_BY, S_BA, S_NX, S_NY, S_NA, S_PX, S_PY, S_PA,
    S_PREV_TICK, S_BFULL, S_NFULL, S_PREST, S_SIGNALS, S_RANDOM, S_RANDOM_MARK, S_LOOK, S_PARTS,
    S_BLOOK, S_BPARTS, S_WSTATE, S_WMARK, S_SMARK,
    S_COUNT
};

static const char *slot_names[S_COUNT] = {
    "x", "y", "angle", "alive", "_motion_only",
    "_bx", "_by", "_ba", "_nx", "_ny", "_na", "_px", "_py", "_pa",
    "_prev_tick", "_bfull", "_nfull", "_prest", "_signals", "_random", "_random_mark", "_look", "_parts",
    "_blook", "_bparts", "_wstate", "_wmark", "_smark",
};

static Py_ssize_t offsets[S_COUNT];
static PyObject *slot_strs[S_COUNT];      /* the slots' names, interned (configure()) */
static PyObject *slot_descrs[S_COUNT];    /* the slots' member descriptors (borrowed: the slots class holds them) */
/* The slots' names by their address: a table of 64 (open addressing), so that the barrier finds
 * whether a name is one of the engine's slots in a few instructions. */
#define SLOT_TABLE 64
static PyObject *slot_table_names[SLOT_TABLE];
static int slot_table_slots[SLOT_TABLE];

static inline int
slot_hash(PyObject *name)
{
    return (int)(((uintptr_t)name >> 4) & (SLOT_TABLE - 1));
}

/* The slot an interned ``name`` is the name of, or -1; never calls out. */
static inline int
slot_named(PyObject *name)
{
    for (int i = slot_hash(name);; i = (i + 1) & (SLOT_TABLE - 1)) {
        if (slot_table_names[i] == name) {
            return slot_table_slots[i];
        }
        if (slot_table_names[i] == NULL) {
            return -1;
        }
    }
}
static Py_ssize_t kept_end = 0;           /* past the last slot keep() and put_back() touch */
static PyTypeObject *slots_type = NULL;   /* BufferSlots, set by configure() */
static PyObject *str_layout = NULL;       /* "_layout" */
static PyObject *str_get = NULL;          /* "get" */
static PyObject *str_set = NULL;          /* "set" */

#define SLOT(obj, s) (*(PyObject **)((char *)(obj) + offsets[s]))
#define SLOT_AT(obj, s) ((PyObject **)((char *)(obj) + offsets[s]))

/* Entities are reached through a list of pointers, which the hardware cannot prefetch:
 * ask for the one a few places ahead, and for the line of its baseline slots. */
#define AHEAD 16
static inline void
prefetch_entity(PyObject *list, Py_ssize_t i)
{
#if defined(__GNUC__) || defined(__clang__)
    if (i < PyList_GET_SIZE(list)) {
        char *entity = (char *)PyList_GET_ITEM(list, i);
        __builtin_prefetch(entity);
        __builtin_prefetch(entity + offsets[S_BA]);
    }
#else
    (void)list;
    (void)i;
#endif
}

/* Store a new reference to ``value`` in a slot; the old value is released last, since
 * releasing it may run arbitrary code. */
static inline void
slot_set(PyObject *obj, int s, PyObject *value)
{
    PyObject **where = (PyObject **)((char *)obj + offsets[s]);
    PyObject *old = *where;
    Py_XINCREF(value);
    *where = value;
    Py_XDECREF(old);
}

/* Exchange the values of two slots: no reference changes hands, nothing is released. */
static inline void
slot_swap(PyObject *obj, int a, int b)
{
    PyObject **first = (PyObject **)((char *)obj + offsets[a]);
    PyObject **second = (PyObject **)((char *)obj + offsets[b]);
    PyObject *value = *first;
    *first = *second;
    *second = value;
}

/* The AttributeError reading the slot in Python raises, in its words: from 3.13 on it names
 * the class by its fully qualified name (``module.Name``), before by ``tp_name``. */
static PyObject *
missing(PyObject *obj, int s)
{
#if PY_VERSION_HEX >= 0x030D0000
    PyErr_Format(PyExc_AttributeError, "'%T' object has no attribute '%s'", obj, slot_names[s]);
#else
    PyErr_Format(PyExc_AttributeError, "'%.200s' object has no attribute '%s'", Py_TYPE(obj)->tp_name,
                 slot_names[s]);
#endif
    return NULL;
}

/* A slot's value (borrowed), or NULL with AttributeError set, as reading it in Python would. */
static inline PyObject *
slot_get(PyObject *obj, int s)
{
    PyObject *value = SLOT(obj, s);
    if (value == NULL) {
        return missing(obj, s);
    }
    return value;
}

/* The last class that passed the check, and its version tag. Not a reference: releasing
 * one could free a class and run its finalizers in the middle of a pass. A class that is
 * freed, or changed (its ``__bases__`` reassigned), loses its tag, and a class created
 * at the same address later gets a new one, so a stale entry can never match. */
static PyTypeObject *checked_type = NULL;
static unsigned int checked_tag = 0;

/* 1 if ``obj`` is an instance of the slots class, 0 if not; never calls out. */
static inline int
is_entity(PyObject *obj)
{
    PyTypeObject *type = Py_TYPE(obj);
    if (type == checked_type && checked_tag != 0 && type->tp_version_tag == checked_tag) {
        return 1;
    }
    if (slots_type == NULL || (type != slots_type && !PyType_IsSubtype(type, slots_type))) {
        return 0;
    }
    checked_type = type;
    checked_tag = type->tp_version_tag;
    return 1;
}

/* The last part of a class's name, as ``type(obj).__name__`` reads for classes written in C too. */
static const char *
short_name(PyTypeObject *type)
{
    const char *dot = strrchr(type->tp_name, '.');
    return dot == NULL ? type->tp_name : dot + 1;
}

static inline int
check_entity(PyObject *obj)
{
    if (is_entity(obj)) {
        return 0;
    }
    if (slots_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "engine.buffering._core is not configured");
        return -1;
    }
    PyErr_Format(PyExc_TypeError, "expected an Entity, got %.200s", short_name(Py_TYPE(obj)));
    return -1;
}

/* 1 if the entity keeps only x, y and angle, 0 if it has buffered fields of its own. */
static int
motion_only(PyObject *obj)
{
    PyObject *flag = slot_get(obj, S_MOTION_ONLY);
    if (flag == NULL) {
        return -1;
    }
    if (flag == Py_True) {
        return 1;
    }
    if (flag == Py_False) {
        return 0;
    }
    Py_INCREF(flag);   /* its __bool__ may replace it */
    int only = PyObject_IsTrue(flag);
    Py_DECREF(flag);
    return only;
}

/* type(entity)._layout.get(entity): every buffered value as a tuple (new reference). */
static PyObject *
layout_get(PyObject *obj)
{
    PyObject *layout = PyObject_GetAttr((PyObject *)Py_TYPE(obj), str_layout);
    if (layout == NULL) {
        return NULL;
    }
    PyObject *getter = PyObject_GetAttr(layout, str_get);
    Py_DECREF(layout);
    if (getter == NULL) {
        return NULL;
    }
    PyObject *values = PyObject_CallOneArg(getter, obj);
    Py_DECREF(getter);
    return values;
}

/* type(entity)._layout.set(entity, values). */
static int
layout_set(PyObject *obj, PyObject *values)
{
    PyObject *layout = PyObject_GetAttr((PyObject *)Py_TYPE(obj), str_layout);
    if (layout == NULL) {
        return -1;
    }
    PyObject *result = PyObject_CallMethodObjArgs(layout, str_set, obj, values, NULL);
    Py_DECREF(layout);
    if (result == NULL) {
        return -1;
    }
    Py_DECREF(result);
    return 0;
}

static int
check_list(PyObject *obj, const char *what)
{
    if (!PyList_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a list, got %.200s", what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    return 0;
}

/* -- configure -------------------------------------------------------------------------- */

static PyObject *
core_configure(PyObject *module, PyObject *cls)
{
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "configure() takes the class that declares the buffer slots");
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)cls;
    Py_ssize_t found[S_COUNT];
    PyObject *descriptors[S_COUNT];
    for (int s = 0; s < S_COUNT; s++) {
        PyObject *descriptor = PyDict_GetItemString(type->tp_dict, slot_names[s]);
        if (descriptor == NULL || !Py_IS_TYPE(descriptor, &PyMemberDescr_Type)) {
            PyErr_Format(PyExc_TypeError, "%.200s has no slot %s", type->tp_name, slot_names[s]);
            return NULL;
        }
        PyMemberDef *member = ((PyMemberDescrObject *)descriptor)->d_member;
        if (member->type != T_OBJECT_EX || (member->flags & READONLY)) {
            PyErr_Format(PyExc_TypeError, "%.200s.%s is not a plain writable slot", type->tp_name, slot_names[s]);
            return NULL;
        }
        found[s] = member->offset;
        descriptors[s] = descriptor;
    }
    for (int s = 0; s < S_COUNT; s++) {
        if (slot_strs[s] == NULL) {
            if ((slot_strs[s] = PyUnicode_InternFromString(slot_names[s])) == NULL) {
                return NULL;
            }
            int i = slot_hash(slot_strs[s]);
            while (slot_table_names[i] != NULL) {
                i = (i + 1) & (SLOT_TABLE - 1);
            }
            slot_table_names[i] = slot_strs[s];   /* held by slot_strs, for the module's life */
            slot_table_slots[i] = s;
        }
    }
    memcpy(offsets, found, sizeof(offsets));
    memcpy(slot_descrs, descriptors, sizeof(slot_descrs));
    kept_end = 0;
    for (int s = 0; s < S_COUNT; s++) {
        if (offsets[s] + (Py_ssize_t)sizeof(PyObject *) > kept_end) {
            kept_end = offsets[s] + (Py_ssize_t)sizeof(PyObject *);
        }
    }
    /* A class checked against the old slots class has its slots at the old offsets. */
    checked_type = NULL;
    checked_tag = 0;
    Py_INCREF(type);
    Py_XSETREF(slots_type, type);
    Py_RETURN_NONE;
}

/* -- stash, check, commit, previous ------------------------------------------------------ */

/* An object whose release can run no Python code (no finalizer, not tracked by the collector). */
static inline int
inert(PyObject *obj)
{
    return obj == NULL || PyFloat_CheckExact(obj) || PyLong_CheckExact(obj);
}

/* Commit one of x, y, angle (``k``) and record its previous value, for an entity whose
 * committed value is its baseline (C), with its pending value (P) and its previous one
 * (O): the three references rotate, committed <- P, previous <- C, pending <- O (spent,
 * released when the entity next moves: right after its update has made a new value, so
 * the allocator gets it straight back), and the baseline becomes P, so that the next
 * stash finds it in place. Nothing is released that could be freed: C stays referenced
 * by the previous slot (the caller checked that committed and baseline are one object). */
static inline void
commit_and_record(PyObject *entity, int k)
{
    PyObject **committed = SLOT_AT(entity, S_X + k), **pending = SLOT_AT(entity, S_NX + k);
    PyObject **previous = SLOT_AT(entity, S_PX + k), **baseline = SLOT_AT(entity, S_BX + k);
    PyObject *was = *committed, *now = *pending;
    *committed = now;
    *pending = *previous;
    *previous = was;
    Py_INCREF(now);
    *baseline = now;
    Py_DECREF(was);   /* the baseline's reference; ``previous`` keeps it alive */
}

/* Commit one of x, y, angle without recording: committed <- pending, as the pure path's
 * ``entity.x = entity._nx``. The value let go of is the baseline too: never freed here. */
static inline void
commit_only(PyObject *entity, int k)
{
    PyObject **committed = SLOT_AT(entity, S_X + k), *now = SLOT(entity, S_NX + k);
    PyObject *was = *committed;
    Py_INCREF(now);
    *committed = now;
    Py_DECREF(was);
}

/* Scratch space for the commit's releases, kept from tick to tick (a fresh block of this
 * size would be mapped and faulted in anew every tick), unless a commit runs inside
 * another one (a finalizer released at the end of one ticks another world). */
static PyObject **kept = NULL;
static Py_ssize_t kept_size = 0;
static int kept_in_use = 0;

/* The commit of what the updates wrote: the pending values of ``moved`` become committed.
 *
 * Foreign writes were refused at the write (the barrier), so nothing is compared here.
 * First every entity of ``moved`` is checked without calling out: an Entity, with every
 * slot set, its committed values its baseline (the settle put them back). Only then does
 * the commit pass run, which calls no Python code, allocates nothing and releases nothing
 * that could be freed. With ``tick`` not None (no system runs after the Update Method
 * system) the same pass records previous values (see commit_and_record) and ``moved`` is
 * emptied, the references it held released last. */
static PyObject *
core_commit(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "commit(moved, tick) takes 2 arguments");
        return NULL;
    }
    PyObject *moved = args[0], *tick = args[1];
    if (check_list(moved, "moved") < 0) {
        return NULL;
    }
    int record = tick != Py_None;
    Py_ssize_t odd_ticks = 0;
    Py_ssize_t count = PyList_GET_SIZE(moved);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *entity = PyList_GET_ITEM(moved, i);
        if (check_entity(entity) < 0) {
            return NULL;
        }
        for (int k = 0; k < 3; k++) {
            int s = S_X + k;
            if (SLOT(entity, s) == NULL || SLOT(entity, (s = S_NX + k)) == NULL
                    || SLOT(entity, (s = S_BX + k)) == NULL || (record && SLOT(entity, (s = S_PX + k)) == NULL)) {
                return missing(entity, s);
            }
            if (SLOT(entity, S_X + k) != SLOT(entity, S_BX + k)) {
                PyErr_Format(PyExc_RuntimeError, "commit: a moved %.200s was changed after its update",
                             short_name(Py_TYPE(entity)));
                return NULL;
            }
        }
        if (record) {
            if (SLOT(entity, S_PREV_TICK) == NULL) {
                return missing(entity, S_PREV_TICK);
            }
            odd_ticks += !inert(SLOT(entity, S_PREV_TICK));
        }
    }
    /* Room for what the pass lets go of (the entities of ``moved``, previous ticks that are
     * not plain ints), to release once everything is in place. No Python code runs from
     * here to the end of the pass. An entity listed twice lets go of ``tick`` itself the
     * second time, which the check did not see there: with a ``tick`` that is not a plain
     * int, every entry gets room. */
    if (record && !inert(tick)) {
        odd_ticks = count;
    }
    Py_ssize_t room = record ? count + odd_ticks : 0;
    PyObject **spent = NULL;
    int own = 0;
    if (room > 0) {
        if (kept_in_use || room > kept_size) {
            own = kept_in_use;
            PyObject **larger = own ? PyMem_Malloc(sizeof(PyObject *) * (size_t)room)
                                    : PyMem_Realloc(kept, sizeof(PyObject *) * (size_t)room);
            if (larger == NULL) {
                return PyErr_NoMemory();
            }
            if (!own) {
                kept = larger;
                kept_size = room;
            }
            spent = larger;
        }
        else {
            spent = kept;
        }
        if (!own) {
            kept_in_use = 1;
        }
    }

    /* The commit: no call out, no allocation, nothing freed. */
    Py_ssize_t released = 0;
    PyObject **items = ((PyListObject *)moved)->ob_item;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *entity = items[i];
        prefetch_entity(moved, i + AHEAD);
        if (record) {
            commit_and_record(entity, 0);
            commit_and_record(entity, 1);
            commit_and_record(entity, 2);
            PyObject **where = SLOT_AT(entity, S_PREV_TICK), *old = *where;
            Py_INCREF(tick);
            *where = tick;
            if (inert(old)) {
                Py_DECREF(old);
            }
            else {
                spent[released++] = old;
            }
        }
        else {
            commit_only(entity, 0);
            commit_only(entity, 1);
            commit_only(entity, 2);
        }
    }
    if (record && count > 0) {
        /* ``moved`` is emptied (keeping its memory for the next tick); its references go last. */
        memcpy(spent + released, items, sizeof(PyObject *) * (size_t)count);
        released += count;
        Py_SET_SIZE(moved, 0);
    }
    for (Py_ssize_t i = 0; i < released; i++) {
        Py_DECREF(spent[i]);
    }
    if (own) {
        PyMem_Free(spent);
    }
    else if (spent != NULL) {
        kept_in_use = 0;
    }
    Py_RETURN_NONE;
}

/* The baseline becomes the previous values, and the committed values the baseline again. */
static PyObject *
core_record_previous(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "record_previous(moved, tick) takes 2 arguments");
        return NULL;
    }
    PyObject *moved = args[0], *tick = args[1];
    if (check_list(moved, "moved") < 0) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(moved); i++) {
        PyObject *entity = PyList_GET_ITEM(moved, i);
        if (check_entity(entity) < 0) {
            return NULL;
        }
        if (SLOT(entity, S_BX) == NULL || SLOT(entity, S_BY) == NULL || SLOT(entity, S_BA) == NULL) {
            return missing(entity, S_BX);
        }
        if (SLOT(entity, S_X) == NULL || SLOT(entity, S_Y) == NULL || SLOT(entity, S_ANGLE) == NULL) {
            return missing(entity, SLOT(entity, S_X) == NULL ? S_X : SLOT(entity, S_Y) == NULL ? S_Y : S_ANGLE);
        }
        /* previous <- baseline (the tick's start), baseline <- committed (its invariant between
         * ticks). What the previous slot held is parked in the pending slot when that holds the
         * committed value (the commit copied it there): its reference moves, nothing is released,
         * and the old value's memory is not touched (at 10,000 entities, one cache miss each),
         * as commit_and_record leaves it; the settle releases it when the entity next moves.
         * Otherwise it is released last. */
        prefetch_entity(moved, i + AHEAD);
        PyObject *spent[3] = {NULL, NULL, NULL};
        for (int k = 0; k < 3; k++) {
            PyObject **previous = SLOT_AT(entity, S_PX + k), **baseline = SLOT_AT(entity, S_BX + k);
            PyObject **pending = SLOT_AT(entity, S_NX + k), *committed = SLOT(entity, S_X + k), *old = *previous;
            *previous = *baseline;
            *baseline = Py_NewRef(committed);
            if (*pending == committed && old != NULL) {
                *pending = old;
                Py_DECREF(committed);   /* never the last reference: the committed and baseline slots hold it */
            }
            else {
                spent[k] = old;
            }
        }
        if (spent[0] != NULL || spent[1] != NULL || spent[2] != NULL) {
            Py_INCREF(entity);
            Py_XDECREF(spent[0]);
            Py_XDECREF(spent[1]);
            Py_XDECREF(spent[2]);
            Py_DECREF(entity);
        }
        if (SLOT(entity, S_PREV_TICK) != tick) {
            Py_INCREF(entity);
            slot_set(entity, S_PREV_TICK, tick);   /* the old value's release may call out */
            Py_DECREF(entity);
        }
    }
    Py_RETURN_NONE;
}

/* -- the write barrier ------------------------------------------------------------------ */

/* TickState: what the barrier asks of a world's Double Buffer at every write to a buffered
 * field (the pure path's ``engine.buffering.slots.TickState``, the same attributes). Every
 * entity a world holds points to its state from its ``_wstate`` slot. */
typedef struct {
    PyObject_HEAD
    PyObject *updating;   /* the entity whose update runs, or NULL (read as None) */
    PyObject *token;      /* a new object every tick: what ``_wmark`` and ``_smark`` are compared with */
    PyObject *written;    /* list of (entity, values at the tick's start) that systems wrote */
    PyObject *refuse;     /* refuse(writer, written, field) -> the exception for a foreign write */
    PyObject *refused;    /* the first such exception made in this tick, or NULL */
    PyObject *signals;    /* signals(receiver, name, value): raise_signal, or a SignalSink (the core never calls it) */
    PyObject *members;    /* the tick's update order (a list), or NULL between ticks */
    PyObject *tick;       /* the tick's number, for the pure path's readers */
    PyObject *buffers;    /* the world's Double Buffer, for the Python code that reaches it from an entity */
    char ticking;
} TickState;

static PyTypeObject TickStateType;
static PyObject *str_buffered_names = NULL;   /* "_buffered_names" */
static PyObject *str_id = NULL;               /* "id" */
static PyObject *interned_motion[3];          /* "x", "y", "angle" */

static PyObject *
tick_state_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *refuse;
    static char *keywords[] = {"refuse", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:TickState", keywords, &refuse)) {
        return NULL;
    }
    TickState *self = (TickState *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->refuse = Py_NewRef(refuse);
    self->token = PyObject_CallNoArgs((PyObject *)&PyBaseObject_Type);
    self->written = PyList_New(0);
    self->tick = PyLong_FromLong(0);
    if (self->token == NULL || self->written == NULL || self->tick == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static int
tick_state_traverse(TickState *self, visitproc visit, void *arg)
{
    Py_VISIT(self->updating);
    Py_VISIT(self->token);
    Py_VISIT(self->written);
    Py_VISIT(self->refuse);
    Py_VISIT(self->refused);
    Py_VISIT(self->signals);
    Py_VISIT(self->members);
    Py_VISIT(self->tick);
    Py_VISIT(self->buffers);
    return 0;
}

static int
tick_state_clear(TickState *self)
{
    Py_CLEAR(self->updating);
    Py_CLEAR(self->token);
    Py_CLEAR(self->written);
    Py_CLEAR(self->refuse);
    Py_CLEAR(self->refused);
    Py_CLEAR(self->signals);
    Py_CLEAR(self->members);
    Py_CLEAR(self->tick);
    Py_CLEAR(self->buffers);
    return 0;
}

static void
tick_state_dealloc(TickState *self)
{
    PyObject_GC_UnTrack(self);
    tick_state_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* ``updating`` reads None for NULL; None written is kept as NULL (one test in the barrier). */
static PyObject *
tick_state_get_updating(TickState *self, void *closure)
{
    return Py_NewRef(self->updating != NULL ? self->updating : Py_None);
}

static int
tick_state_set_updating(TickState *self, PyObject *value, void *closure)
{
    Py_XSETREF(self->updating, value == NULL || value == Py_None ? NULL : Py_NewRef(value));
    return 0;
}

static PyMemberDef tick_state_members[] = {
    {"token", T_OBJECT_EX, offsetof(TickState, token), 0, "A new object every tick."},
    {"written", T_OBJECT_EX, offsetof(TickState, written), 0,
     "(entity, values at the tick's start) of every entity a system wrote in this tick."},
    {"refuse", T_OBJECT_EX, offsetof(TickState, refuse), 0, "refuse(writer, written, field): the error to raise."},
    {"refused", T_OBJECT, offsetof(TickState, refused), 0, "The first refusal of this tick, or None."},
    {"tick", T_OBJECT_EX, offsetof(TickState, tick), 0, "The tick's number."},
    {"members", T_OBJECT, offsetof(TickState, members), 0,
     "The tick's update order: whoever was in the world when it began (None between ticks)."},
    {"signals", T_OBJECT, offsetof(TickState, signals), 0,
     "signals(receiver, name, value): raise a signal into the world's next buffer."},
    {"buffers", T_OBJECT, offsetof(TickState, buffers), 0,
     "The world's Double Buffer: what an entity's Python code reaches through its state (None until set)."},
    {"ticking", T_BOOL, offsetof(TickState, ticking), 0, "Whether a tick runs."},
    {NULL},
};

static PyGetSetDef tick_state_getset[] = {
    {"updating", (getter)tick_state_get_updating, (setter)tick_state_set_updating,
     "The entity whose update() runs, or None.", NULL},
    {NULL},
};

static PyTypeObject TickStateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine.buffering._core.TickState",
    .tp_basicsize = sizeof(TickState),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "TickState(refuse)\n--\n\nWhat the write barrier asks of a world's Double Buffer "
              "(engine.buffering.slots.TickState).",
    .tp_new = tick_state_new,
    .tp_dealloc = (destructor)tick_state_dealloc,
    .tp_traverse = (traverseproc)tick_state_traverse,
    .tp_clear = (inquiry)tick_state_clear,
    .tp_members = tick_state_members,
    .tp_getset = tick_state_getset,
};

/* 0, 1 or 2 for x, y or angle, -1 for any other name; never calls out. */
static inline int
motion_index(PyObject *name)
{
    for (int k = 0; k < 3; k++) {
        if (name == interned_motion[k]) {
            return k;
        }
    }
    if (PyUnicode_CheckExact(name) && !PyUnicode_CHECK_INTERNED(name)) {
        for (int k = 0; k < 3; k++) {
            if (PyUnicode_Compare(name, interned_motion[k]) == 0) {
                return k;
            }
        }
    }
    return -1;
}

/* The class last asked about, its version tag, and its ``_buffered_names`` when they hold fields
 * of its own (else NULL): a plain attribute's write in an update asks every time. Borrowed, as
 * ``checked_type``: a class whose attributes change gets a new tag, and a freed one loses it. */
static PyTypeObject *names_type = NULL;
static unsigned int names_tag = 0;
static PyObject *names_of_type = NULL;

/* 1 if ``name`` (not x, y or angle) is a buffered field of ``obj``'s class, 0 if not. */
static int
is_buffered(PyObject *obj, PyObject *name)
{
    PyTypeObject *type = Py_TYPE(obj);
    PyObject *names;
    if (type == names_type && names_tag != 0 && type->tp_version_tag == names_tag) {
        names = names_of_type;
    }
    else {
        names = _PyType_Lookup(type, str_buffered_names);   /* borrowed, no call out */
        if (names == NULL || !PyFrozenSet_CheckExact(names) || PySet_GET_SIZE(names) <= 3) {
            names = NULL;   /* only x, y and angle, or not an entity class */
        }
        if (type->tp_version_tag != 0) {
            names_type = type;
            names_tag = type->tp_version_tag;
            names_of_type = names;
        }
    }
    if (names == NULL || !PyUnicode_CheckExact(name)) {
        return 0;   /* a str subclass as a name: never one of the class body's identifiers */
    }
    return PySet_Contains(names, name);   /* a str's hash and equality run no Python code */
}

/* Store a new reference in a slot, the old one handed to ``*spent`` for the caller to release last. */
static inline void
slot_put(PyObject *obj, int s, PyObject *value, PyObject **spent)
{
    PyObject **where = SLOT_AT(obj, s);
    *spent = *where;
    *where = Py_NewRef(value);
}

/* The first write this tick of an updating entity with buffered fields of its own: its
 * committed values set aside as one tuple (``_bfull``), marked with the tick's token. (Its x,
 * y and angle are in the baseline slots already: they always hold the committed values.)
 * The tuple is read first (the layout's getter may call out), then the slots set, the mark
 * first, and only then is anything released: a finalizer run by a release finds the entity
 * marked, and its write is the entity's own. The caller holds the entity and the state. */
static int
hold(PyObject *entity, TickState *state)
{
    PyObject *full = layout_get(entity);
    if (full == NULL) {
        return -1;
    }
    if (!PyTuple_CheckExact(full) || PyTuple_GET_SIZE(full) < 3) {
        Py_DECREF(full);
        PyErr_SetString(PyExc_TypeError, "a layout's getter must return a tuple of every buffered value");
        return -1;
    }
    PyObject *spent[2];
    slot_put(entity, S_WMARK, state->token, &spent[0]);
    spent[1] = SLOT(entity, S_BFULL);
    *SLOT_AT(entity, S_BFULL) = full;   /* the reference layout_get gave */
    Py_XDECREF(spent[0]);
    Py_XDECREF(spent[1]);
    return 0;
}

/* Whether a written entity was in its world when the tick began (in ``state->members``, the
 * tick's update order): a write to it from another entity's update is refused, despawned
 * during the tick or not, so that the refusal never depends on who updated first. One that
 * has no id yet (spawned in this tick) or left before the tick is nobody's concern. A live
 * entity is found by its ``alive`` slot; only a write to a dead one walks the list. */
static int
joined(PyObject *entity, TickState *state)
{
    PyObject *id = PyObject_GetAttr(entity, str_id);
    if (id == NULL) {
        PyErr_Clear();
        return 0;
    }
    int has = id != Py_None;
    Py_DECREF(id);
    if (!has) {
        return 0;
    }
    if (SLOT(entity, S_ALIVE) == Py_True) {
        return 1;
    }
    PyObject *members = state->members;
    if (members == NULL || !PyList_Check(members)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(members); i++) {   /* identity only: no call out */
        if (PyList_GET_ITEM(members, i) == entity) {
            return 1;
        }
    }
    return 0;
}

/* A write to another entity's buffered field from an update: the state's ``refuse`` makes the
 * error, raised here, at the writer's line. */
static int
refuse_write(TickState *state, PyObject *writer, PyObject *entity, PyObject *name)
{
    PyObject *error = PyObject_CallFunctionObjArgs(state->refuse, writer, entity, name, NULL);
    if (error == NULL) {
        return -1;
    }
    if (!PyExceptionInstance_Check(error)) {
        Py_DECREF(error);
        PyErr_SetString(PyExc_TypeError, "TickState.refuse must return an exception");
        return -1;
    }
    if (state->refused == NULL || state->refused == Py_None) {
        Py_XSETREF(state->refused, Py_NewRef(error));
    }
    PyErr_SetObject((PyObject *)Py_TYPE(error), error);
    Py_DECREF(error);
    return -1;
}

/* A system's (or the engine's, outside any update) first write to ``entity`` this tick: its
 * values at the tick's start are kept, for previous values and for an abort. */
static int
record_system_write(PyObject *entity, TickState *state)
{
    PyObject *before;
    int only = motion_only(entity);
    if (only < 0) {
        return -1;
    }
    if (only) {
        /* the baseline slots hold the tick's start (committed, or kept aside by a commit to come) */
        if (SLOT(entity, S_BX) == NULL || SLOT(entity, S_BY) == NULL || SLOT(entity, S_BA) == NULL) {
            missing(entity, S_BX);
            return -1;
        }
        before = PyTuple_Pack(3, SLOT(entity, S_BX), SLOT(entity, S_BY), SLOT(entity, S_BA));
    }
    else if (SLOT(entity, S_WMARK) == state->token) {
        /* its own update wrote already: its tuple set aside is the tick's start */
        before = SLOT(entity, S_BFULL);
        if (before == NULL) {
            missing(entity, S_BFULL);
            return -1;
        }
        Py_INCREF(before);
    }
    else {
        before = layout_get(entity);
    }
    if (before == NULL) {
        return -1;
    }
    PyObject *pair = PyTuple_Pack(2, entity, before);
    Py_DECREF(before);
    if (pair == NULL) {
        return -1;
    }
    PyObject *written = Py_NewRef(state->written);
    int failed = PyList_Check(written) ? PyList_Append(written, pair) : -1;
    if (failed && !PyErr_Occurred()) {
        PyErr_SetString(PyExc_TypeError, "TickState.written must be a list");
    }
    Py_DECREF(written);
    Py_DECREF(pair);
    if (failed) {
        return -1;
    }
    slot_set(entity, S_SMARK, state->token);
    return 0;
}

/* x, y or angle (``k``) of an entity, stored straight into its slot (what the slot's member
 * descriptor does, without finding it); the old value is released last. An update's own
 * pending write: the baseline slot keeps the committed value. */
static inline int
store_motion(PyObject *obj, int k, PyObject *value)
{
    PyObject **where = SLOT_AT(obj, S_X + k), *old = *where;
    *where = Py_NewRef(value);
    Py_XDECREF(old);
    return 0;
}

/* x, y or angle committed at once (between ticks, from a system, to an entity not joined
 * yet): into its slot and its baseline slot, which always holds the committed value. */
static inline int
store_committed(PyObject *obj, int k, PyObject *value)
{
    PyObject **where = SLOT_AT(obj, S_X + k), **baseline = SLOT_AT(obj, S_BX + k);
    PyObject *old = *where, *old_baseline = *baseline;
    *where = Py_NewRef(value);
    *baseline = Py_NewRef(value);
    Py_XDECREF(old);
    Py_XDECREF(old_baseline);
    return 0;
}

/* Whether ``kind`` is one of the mutable built-in types a buffered value may not be or hold
 * (exactly those, as slots.MUTABLE_TYPES: a pointer comparison each). */
static inline int
is_mutable_type(PyTypeObject *kind)
{
    return kind == &PyList_Type || kind == &PyDict_Type || kind == &PySet_Type || kind == &PyByteArray_Type;
}

/* slots.mutable_in: the first mutable type ``value`` is or holds through tuples (at most
 * MUTABLE_DEPTH deep, as the pure path looks), else NULL. Reads items only: no Python code. */
#define MUTABLE_DEPTH 64
static PyTypeObject *
mutable_in(PyObject *value, int depth)
{
    PyTypeObject *kind = Py_TYPE(value);
    if (is_mutable_type(kind)) {
        return kind;
    }
    if (PyTuple_Check(value) && depth > 0) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(value); i++) {
            PyTypeObject *found = mutable_in(PyTuple_GET_ITEM(value, i), depth - 1);
            if (found != NULL) {
                return found;
            }
        }
    }
    return NULL;
}

/* A list, dict, set or bytearray (or a tuple holding one) written to a buffered field of the
 * class's own, by its update: refused at that line, in the words of ``slots.refuse_mutable``
 * (the pure path's barrier says the same). */
static int
refuse_mutable_write(PyObject *obj, PyObject *name, PyObject *value)
{
    PyTypeObject *kind = Py_TYPE(value);
    if (is_mutable_type(kind)) {
        PyErr_Format(PyExc_TypeError,
                     "%s.%U is buffered and was set to a %s: buffered values are immutable, so use a tuple or a "
                     "frozenset (tuple(...) of the %s)", short_name(Py_TYPE(obj)), name, kind->tp_name,
                     kind->tp_name);
        return -1;
    }
    if (!PyTuple_Check(value)) {
        return 0;
    }
    PyTypeObject *held = mutable_in(value, MUTABLE_DEPTH);
    if (held == NULL) {
        return 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "%s.%U is buffered and was set to a %s holding a %s: buffered values are immutable all the way "
                 "down, so use a tuple or a frozenset inside it too (tuple(...) of the %s)",
                 short_name(Py_TYPE(obj)), name, short_name(kind), held->tp_name, held->tp_name);
    return -1;
}

/* The rule for a write to buffered field ``name`` (motion index ``k``, or -1 for a field of the
 * class's own) of ``obj`` while its world ticks; then the write itself. Kept out of line, so
 * that the barrier's own hot path stays small. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static int
barrier_write(PyObject *obj, TickState *ts, PyObject *name, int k, PyObject *value)
{
    PyObject *updating = ts->updating;
    if (updating == obj && (SLOT(obj, S_WMARK) == ts->token || (k >= 0 && SLOT(obj, S_MOTION_ONLY) == Py_True))) {
        /* The hot path: an update writing its own pending value. An entity of only x, y and
         * angle needs nothing set aside (the baseline slots hold its committed values); one
         * with fields of its own has set its tuple aside at its first write. */
        if (k >= 0) {
            return store_motion(obj, k, value);
        }
        return refuse_mutable_write(obj, name, value) < 0 ? -1 : PyObject_GenericSetAttr(obj, name, value);
    }
    /* Whatever is called below may drop the entity's state or the entity itself. */
    Py_INCREF(ts);
    Py_INCREF(obj);
    int failed = 0, own = updating == obj;
    if (own) {
        int only = motion_only(obj);
        failed = only < 0 || (k < 0 && refuse_mutable_write(obj, name, value) < 0) || (!only && hold(obj, ts) < 0);
    }
    else if (updating != NULL) {
        Py_INCREF(updating);
        int foreign = joined(obj, ts);
        if (foreign < 0) {
            failed = 1;
        }
        else if (foreign) {
            refuse_write(ts, updating, obj, name);
            failed = 1;
        }
        else if (SLOT(obj, S_SMARK) != ts->token) {
            failed = record_system_write(obj, ts) < 0;
        }
        Py_DECREF(updating);
    }
    else if (SLOT(obj, S_SMARK) != ts->token) {
        failed = record_system_write(obj, ts) < 0;
    }
    if (!failed) {
        if (k >= 0) {
            failed = (own ? store_motion(obj, k, value) : store_committed(obj, k, value)) < 0;
        }
        else {
            /* A system's write (or one to an entity spawned in this tick) is committed at once: refused
             * as its own update's is when it is or holds a mutable value (its own was checked above). */
            failed = (!own && refuse_mutable_write(obj, name, value) < 0)
                     || PyObject_GenericSetAttr(obj, name, value) < 0;
        }
    }
    Py_DECREF(obj);
    Py_DECREF(ts);
    return failed ? -1 : 0;
}

/* Barrier's tp_setattro: the Double Buffer's rule at every write to an entity's attribute.
 * A plain attribute, or any write outside a tick, goes straight to the generic setattr. */
static int
barrier_setattro(PyObject *obj, PyObject *name, PyObject *value)
{
    if (value == NULL || !is_entity(obj)) {
        return PyObject_GenericSetAttr(obj, name, value);   /* a deletion is nobody's write */
    }
    int s = slot_named(name);
    if (s > S_ANGLE) {
        /* One of the engine's own slots (an entity's class may not shadow them: entity.py
         * refuses it): stored straight into it, as its member descriptor would, without the
         * generic lookup; a new entity's constructor and its spawn write some twenty. */
        PyObject **where = SLOT_AT(obj, s), *old = *where;
        *where = Py_NewRef(value);
        Py_XDECREF(old);
        return 0;
    }
    PyObject *state = SLOT(obj, S_WSTATE);
    int ticking = state != NULL && Py_IS_TYPE(state, &TickStateType) && ((TickState *)state)->ticking;
    int k = motion_index(name);
    if (k >= 0) {
        if (!ticking) {
            return store_committed(obj, k, value);
        }
        if (((TickState *)state)->updating == obj && SLOT(obj, S_MOTION_ONLY) == Py_True) {
            return store_motion(obj, k, value);   /* the hot path: an update moving itself */
        }
        return barrier_write(obj, (TickState *)state, name, k, value);
    }
    if (!ticking) {
        if (state != NULL && Py_IS_TYPE(state, &TickStateType)) {
            /* A spawned entity's field written between ticks becomes committed at once: a mutable value
             * there would be shared, by reference, with every checkpoint (a spawn refuses one too). */
            int held = is_buffered(obj, name);
            if (held < 0 || (held && refuse_mutable_write(obj, name, value) < 0)) {
                return -1;
            }
        }
        return PyObject_GenericSetAttr(obj, name, value);
    }
    int buffered = is_buffered(obj, name);
    if (buffered <= 0) {
        return buffered < 0 ? -1 : PyObject_GenericSetAttr(obj, name, value);
    }
    return barrier_write(obj, (TickState *)state, name, -1, value);
}

PyDoc_STRVAR(barrier_doc,
"The base type of ``BufferSlots`` where the compiled core runs: its ``tp_setattro`` is the\n"
"Double Buffer's write barrier (engine.buffering.slots.barrier, in C). No fields of its own.");

static PyTypeObject BarrierType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine.buffering._core.Barrier",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = barrier_doc,
    .tp_setattro = barrier_setattro,
};

/* -- the settler ------------------------------------------------------------------------- */

typedef struct Settler {
    PyObject_HEAD
    PyObject *order;      /* list of entities, in update order; NULL once spent */
    PyObject *moved;      /* list: motion-only entities whose values changed */
    PyObject *changed;    /* list: entities with fields of their own whose values changed */
    TickState *state;     /* the world's: its ``updating`` is the entity handed out */
    Py_ssize_t index;
    PyObject *current;    /* the entity handed out last (updating now, or failed), or NULL */
    int busy;             /* inside __next__: a finalizer or __eq__ calling it again is refused */
    PyObject *shown;      /* list: entities whose look or parts changed (see ShownField) */
} Settler;

/* The state's entity is nobody's now (its update returned, or the settler stopped). */
static void
settler_forget(Settler *self)
{
    if (self->state != NULL && self->state->updating != NULL && self->state->updating == self->current) {
        Py_CLEAR(self->state->updating);
    }
}

/* Whether a tuple of buffered values holds a list, dict, set or bytearray, or a tuple holding
 * one (``mutable_in``): pointer comparisons, no Python code. */
static int
holds_mutable(PyObject *values)
{
    if (!PyTuple_CheckExact(values)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(values); i++) {
        if (mutable_in(PyTuple_GET_ITEM(values, i), MUTABLE_DEPTH) != NULL) {
            return 1;
        }
    }
    return 0;
}

/* The current entity has returned from update(): if it wrote its buffered state (the barrier
 * marked it with the tick's token and set its committed values aside), keep what it wrote
 * as pending and put back what was committed. */
static int
settle(Settler *self)
{
    PyObject *entity = Py_NewRef(self->current);   /* whatever runs below, it stays */
    int failed = 0;
    int only = SLOT(entity, S_MOTION_ONLY) == Py_True ? 1 : motion_only(entity);
    if (only < 0) {
        failed = 1;
    }
    else if (only) {
        /* Only x, y and angle: it wrote if a slot holds another object than its baseline (the
         * committed value). Identity, not equality: an unchanged attribute is the same object,
         * and a new object with an equal value merely costs a harmless swap. */
        for (int k = 0; k < 3 && !failed; k++) {
            if (SLOT(entity, S_X + k) == NULL || SLOT(entity, S_BX + k) == NULL) {
                missing(entity, SLOT(entity, S_X + k) == NULL ? S_X + k : S_BX + k);
                failed = 1;
            }
        }
        if (!failed && (SLOT(entity, S_X) != SLOT(entity, S_BX) || SLOT(entity, S_Y) != SLOT(entity, S_BY)
                        || SLOT(entity, S_ANGLE) != SLOT(entity, S_BA))) {
            if (PyList_Append(self->moved, entity) < 0) {   /* calls no Python code */
                failed = 1;
            }
            else {
                /* Move references: the values written go to the pending slots, the committed
                 * ones (the baseline) back to the committed slots; what the pending slots held
                 * (spent) is released last. */
                PyObject *spent[3];
                for (int k = 0; k < 3; k++) {
                    PyObject **committed = SLOT_AT(entity, S_X + k), **pending = SLOT_AT(entity, S_NX + k);
                    spent[k] = *pending;
                    *pending = *committed;
                    *committed = Py_NewRef(SLOT(entity, S_BX + k));
                }
                Py_XDECREF(spent[0]);
                Py_XDECREF(spent[1]);
                Py_XDECREF(spent[2]);
            }
        }
    }
    else if (SLOT(entity, S_WMARK) == self->state->token) {
        {
            /* With fields of its own, and it wrote (marked): the layout's getter and setter may
             * run anything. The state still names the entity, so its setter's writes are its
             * own, at once. */
            PyObject *before = SLOT(entity, S_BFULL);
            PyObject *after = before == NULL ? NULL : layout_get(entity);
            if (before == NULL) {
                missing(entity, S_BFULL);
            }
            Py_XINCREF(before);
            if (after == NULL) {
                failed = 1;
            }
            else if (holds_mutable(after)) {
                /* Refused with the pure path's words: the layout names the field. */
                PyObject *layout = PyObject_GetAttr((PyObject *)Py_TYPE(entity), str_layout);
                PyObject *result = layout == NULL ? NULL
                    : PyObject_CallMethod(layout, "refuse_mutable", "OO", entity, after);
                Py_XDECREF(layout);
                Py_XDECREF(result);
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_TypeError, "a buffered value is mutable");
                }
                failed = 1;
            }
            else {
                slot_set(entity, S_NFULL, after);
                if (PyList_Append(self->changed, entity) < 0 || layout_set(entity, before) < 0) {
                    failed = 1;
                }
            }
            Py_XDECREF(after);
            Py_XDECREF(before);
        }
    }
    if (!failed) {
        /* Its look or parts (``_look``/``_parts``) as x is settled: if one holds another object
         * than the committed value (``_blook``/``_bparts``), the two are exchanged, so everyone
         * reads the committed one and the pending one waits for the commit (``commit_shown``). */
        for (int s = S_LOOK; s <= S_PARTS && !failed; s++) {
            if (SLOT(entity, s) == NULL || SLOT(entity, s + S_BLOOK - S_LOOK) == NULL) {
                missing(entity, SLOT(entity, s) == NULL ? s : s + S_BLOOK - S_LOOK);
                failed = 1;
            }
        }
        if (!failed && (SLOT(entity, S_LOOK) != SLOT(entity, S_BLOOK) || SLOT(entity, S_PARTS) != SLOT(entity, S_BPARTS))) {
            if (PyList_Append(self->shown, entity) < 0) {   /* calls no Python code */
                failed = 1;
            }
            else {
                slot_swap(entity, S_LOOK, S_BLOOK);
                slot_swap(entity, S_PARTS, S_BPARTS);
            }
        }
    }
    if (!failed) {
        settler_forget(self);
        Py_CLEAR(self->current);
    }
    Py_DECREF(entity);
    return failed ? -1 : 0;
}

/* Something failed: the settler is spent. ``current`` still names the entity it failed
 * on, for the error; nothing is handed out again. */
static PyObject *
settler_failed(Settler *self)
{
    self->busy = 0;
    Py_CLEAR(self->order);
    settler_forget(self);
    return NULL;
}

/* Hand out the next live entity, the state naming it; NULL at the end. */
static PyObject *
settler_step(Settler *self)
{
    if (self->current != NULL && settle(self) < 0) {
        return settler_failed(self);
    }
    while (self->order != NULL && self->index < PyList_GET_SIZE(self->order)) {
        PyObject *entity = Py_NewRef(PyList_GET_ITEM(self->order, self->index));
        self->index++;
        prefetch_entity(self->order, self->index + AHEAD);
        if (check_entity(entity) < 0) {
            Py_DECREF(entity);
            return settler_failed(self);
        }
        Py_XSETREF(self->current, entity);   /* named by the error if anything below fails */
        PyObject *alive = SLOT(entity, S_ALIVE);
        if (alive == NULL) {
            missing(entity, S_ALIVE);
            return settler_failed(self);
        }
        int live = alive == Py_True ? 1 : alive == Py_False ? 0 : -2;
        if (live == -2) {
            Py_INCREF(alive);
            live = PyObject_IsTrue(alive);
            Py_DECREF(alive);
        }
        if (live < 0) {
            return settler_failed(self);
        }
        if (!live) {
            Py_CLEAR(self->current);
            continue;
        }
        Py_XSETREF(self->state->updating, Py_NewRef(self->current));
        return Py_NewRef(self->current);
    }
    Py_CLEAR(self->order);
    return NULL;
}

static PyObject *
settler_next(Settler *self)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the settler was advanced from inside itself");
        return NULL;
    }
    if (self->order == NULL) {
        return NULL;
    }
    self->busy = 1;
    PyObject *entity = settler_step(self);
    self->busy = 0;
    return entity;
}

static PyObject *
settler_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *order, *moved, *changed, *state, *shown;
    static char *keywords[] = {"order", "moved", "changed", "state", "shown", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!O!O!O!:Settler", keywords, &PyList_Type, &order,
                                     &PyList_Type, &moved, &PyList_Type, &changed, &TickStateType, &state,
                                     &PyList_Type, &shown)) {
        return NULL;
    }
    if (slots_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "engine.buffering._core is not configured");
        return NULL;
    }
    Settler *self = (Settler *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->order = Py_NewRef(order);
    self->moved = Py_NewRef(moved);
    self->changed = Py_NewRef(changed);
    self->state = (TickState *)Py_NewRef(state);
    self->shown = Py_NewRef(shown);
    return (PyObject *)self;
}

static int
settler_traverse(Settler *self, visitproc visit, void *arg)
{
    Py_VISIT(self->order);
    Py_VISIT(self->moved);
    Py_VISIT(self->changed);
    Py_VISIT(self->current);
    Py_VISIT(self->state);
    Py_VISIT(self->shown);
    return 0;
}

static int
settler_clear(Settler *self)
{
    settler_forget(self);
    Py_CLEAR(self->order);
    Py_CLEAR(self->moved);
    Py_CLEAR(self->changed);
    Py_CLEAR(self->current);
    Py_CLEAR(self->state);
    Py_CLEAR(self->shown);
    return 0;
}

static void
settler_dealloc(Settler *self)
{
    PyObject_GC_UnTrack(self);
    settler_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
settler_get_current(Settler *self, void *closure)
{
    return Py_NewRef(self->current != NULL ? self->current : Py_None);
}

static PyObject *
settler_close(Settler *self, PyObject *unused)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the settler was closed from inside itself");
        return NULL;
    }
    PyObject *order = self->order;
    self->order = NULL;
    settler_forget(self);
    Py_XDECREF(order);
    Py_RETURN_NONE;
}

static PyMethodDef settler_methods[] = {
    {"close", (PyCFunction)settler_close, METH_NOARGS,
     "close()\n--\n\nThe updates are over (an update raised): hand out nothing more; ``current`` still names "
     "the entity."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef settler_getset[] = {
    {"current", (getter)settler_get_current, NULL,
     "The entity whose update() is running (or failed), or None.", NULL},
    {NULL},
};

PyDoc_STRVAR(settler_doc,
"Settler(order, moved, changed, state, shown)\n--\n\n"
"Iterate over the live entities of ``order`` for their updates (``state.updating`` names each),\n"
"settling each one that wrote its buffered state after it: pending values kept aside\n"
"(``moved`` / ``changed`` / ``shown`` list the entities that changed their motion, their\n"
"own fields, their look or parts), committed values put back. See engine.buffering.buffers.");

static PyTypeObject SettlerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine.buffering._core.Settler",
    .tp_basicsize = sizeof(Settler),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = settler_doc,
    .tp_new = settler_new,
    .tp_dealloc = (destructor)settler_dealloc,
    .tp_traverse = (traverseproc)settler_traverse,
    .tp_clear = (inquiry)settler_clear,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)settler_next,
    .tp_getset = settler_getset,
    .tp_methods = settler_methods,
};

/* -- shown fields: an entity's own look and parts ------------------------------------------ */

/* The compiled half of ``engine.buffering.shown.Shown`` (its base class where the core is
 * built): the descriptor's hot paths, the read of an entity's field (one slot: the updating
 * entity's pending value or the committed one, which the settle puts back) and the updating
 * entity's write of its own (a pending write, as the barrier makes one to x). Every other
 * case (a class's read, a write from a system, between ticks, before spawn, or refused) calls
 * the Python methods ``read`` and ``store``, which are the pure path's own code, so the two
 * paths cannot disagree there. ``bind()`` (called by ``Shown.__init__``) says which slot the
 * field is over and the markers it compares with; an unbound field takes the Python path for
 * everything. */
enum {
    F_CLASS,    /* "_class_look": the class attribute an entity that sets none of its own shows */
    F_CHECK,    /* check(entity_class, value) -> what the slot holds, or raises */
    F_PLAIN,    /* a type taken unchecked (Look), or NULL */
    F_EMPTY,    /* what an own value of ``hidden`` reads as */
    F_HIDDEN,   /* the slot's "an own value of None" */
    F_FOLLOW,   /* what ``del entity.look`` sets (the check makes it None) */
    SHOWN_REFS
};
typedef struct {
    PyObject_HEAD
    int slot;                       /* S_LOOK or S_PARTS; -1 until bound */
    PyObject *refs[SHOWN_REFS];     /* bind()'s arguments after the slot, in this order */
} ShownField;

static PyTypeObject ShownFieldType;
static PyObject *str_read = NULL;    /* "read" */
static PyObject *str_store = NULL;   /* "store" */

static PyObject *
shown_bind(ShownField *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "bind(slot, class_attribute, check, plain, empty, hidden, follow) takes "
                                         "7 arguments");
        return NULL;
    }
    int slot = !PyUnicode_Check(args[0]) ? -1 : PyUnicode_CompareWithASCIIString(args[0], "_look") == 0 ? S_LOOK
        : PyUnicode_CompareWithASCIIString(args[0], "_parts") == 0 ? S_PARTS : -1;
    if (slot < 0) {
        PyErr_SetString(PyExc_ValueError, "bind: a shown field is over _look or _parts");
        return NULL;
    }
    if (!PyUnicode_Check(args[1]) || !PyCallable_Check(args[2]) || (args[3] != Py_None && !PyType_Check(args[3]))) {
        PyErr_SetString(PyExc_TypeError, "bind: class_attribute must be a str, check callable, plain a type or None");
        return NULL;
    }
    self->slot = -1;   /* unbound while the references change hands: a release below may read it */
    PyObject *old[SHOWN_REFS];
    for (int k = 0; k < SHOWN_REFS; k++) {
        old[k] = self->refs[k];
        self->refs[k] = k == F_PLAIN && args[k + 1] == Py_None ? NULL : Py_NewRef(args[k + 1]);
    }
    self->slot = slot;
    for (int k = 0; k < SHOWN_REFS; k++) {
        Py_XDECREF(old[k]);
    }
    Py_RETURN_NONE;
}

static PyObject *
shown_get(ShownField *self, PyObject *obj, PyObject *type)
{
    PyObject *own = obj != NULL && obj != Py_None && self->slot >= 0 && is_entity(obj) ? SLOT(obj, self->slot) : NULL;
    if (own == NULL) {
        return PyObject_CallMethodObjArgs((PyObject *)self, str_read, obj == NULL ? Py_None : obj,
                                          type == NULL ? Py_None : type, NULL);
    }
    if (own == Py_None) {
        return PyObject_GetAttr((PyObject *)Py_TYPE(obj), self->refs[F_CLASS]);
    }
    return Py_NewRef(own == self->refs[F_HIDDEN] ? self->refs[F_EMPTY] : own);
}

static int
shown_set(ShownField *self, PyObject *obj, PyObject *value)
{
    if (self->slot < 0) {
        PyErr_SetString(PyExc_RuntimeError, "engine.buffering._core.ShownField: set before bind()");
        return -1;
    }
    PyObject *raw;
    value = value == NULL ? self->refs[F_FOLLOW] : value;   /* del entity.look: follow the class again */
    if (self->refs[F_PLAIN] != NULL && (PyObject *)Py_TYPE(value) == self->refs[F_PLAIN]) {
        raw = Py_NewRef(value);
    }
    else {
        Py_INCREF(value);   /* the field's own ``follow`` included: the check may rebind it */
        raw = PyObject_CallFunctionObjArgs(self->refs[F_CHECK], (PyObject *)Py_TYPE(obj), value, NULL);
        Py_DECREF(value);
        if (raw == NULL) {
            return -1;
        }
    }
    /* The check may have run anything: everything below is read after it. Its own update's write
     * is pending: the slot only, which the settle finds. */
    PyObject *state = self->slot >= 0 && is_entity(obj) && SLOT(obj, self->slot) != NULL ? SLOT(obj, S_WSTATE) : NULL;
    if (state != NULL && Py_IS_TYPE(state, &TickStateType) && ((TickState *)state)->ticking
            && ((TickState *)state)->updating == obj) {
        slot_set(obj, self->slot, raw);   /* the value let go of may run a finalizer: last */
        Py_DECREF(raw);
        return 0;
    }
    PyObject *result = PyObject_CallMethodObjArgs((PyObject *)self, str_store, obj, raw, NULL);
    Py_DECREF(raw);
    Py_XDECREF(result);
    return result == NULL ? -1 : 0;
}

static int
shown_traverse(ShownField *self, visitproc visit, void *arg)
{
    for (int k = 0; k < SHOWN_REFS; k++) {
        Py_VISIT(self->refs[k]);
    }
    return 0;
}

static int
shown_clear(ShownField *self)
{
    self->slot = -1;
    for (int k = 0; k < SHOWN_REFS; k++) {
        Py_CLEAR(self->refs[k]);
    }
    return 0;
}

/* A subclass's instances come here through ``subtype_dealloc``, which releases their class. */
static void
shown_dealloc(ShownField *self)
{
    PyObject_GC_UnTrack(self);
    shown_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
shown_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    ShownField *self = (ShownField *)type->tp_alloc(type, 0);
    if (self != NULL) {
        self->slot = -1;
    }
    return (PyObject *)self;
}

static PyMethodDef shown_methods[] = {
    {"bind", (PyCFunction)(void (*)(void))shown_bind, METH_FASTCALL,
     "bind(slot, class_attribute, check, plain, empty, hidden, follow)\n--\n\n"
     "Say which slot this field is over (\"_look\" or \"_parts\") and what it compares with: from then on "
     "the hot paths of reading and setting it run in C."},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(shown_doc,
"The compiled hot paths of a shown field's descriptor: the base class of engine.buffering.shown.Shown.\n\n"
"Subclasses provide ``read(entity, owner)`` and ``store(entity, raw)``, the pure path's code, which it\n"
"calls for every case but the common ones.");

static PyTypeObject ShownFieldType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine.buffering._core.ShownField",
    .tp_basicsize = sizeof(ShownField),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = shown_doc,
    .tp_new = shown_new,
    .tp_dealloc = (destructor)shown_dealloc,
    .tp_traverse = (traverseproc)shown_traverse,
    .tp_clear = (inquiry)shown_clear,
    .tp_methods = shown_methods,
    .tp_descr_get = (descrgetfunc)shown_get,
    .tp_descr_set = (descrsetfunc)shown_set,
};

/* The commit of the looks and parts the updates set (``shown.commit_shown``, same order, same
 * effects): each settled entity's ``(entity, _look, _parts)``, its values before, is appended
 * to ``written`` (unless it is None), and the pending values (in ``_blook``/``_bparts`` since
 * the settle) become the ones everyone reads. The list's length is read again at every step:
 * a tuple's allocation may start the collector's callbacks, and a value let go of may run a
 * finalizer. */
static PyObject *
core_commit_shown(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "commit_shown(settled, written) takes 2 arguments");
        return NULL;
    }
    PyObject *settled = args[0], *written = args[1] == Py_None ? NULL : args[1];
    if (check_list(settled, "settled") < 0 || (written != NULL && check_list(written, "written") < 0)) {
        return NULL;
    }
    Py_INCREF(settled);
    Py_XINCREF(written);
    int failed = 0;
    for (Py_ssize_t i = 0; !failed && i < PyList_GET_SIZE(settled); i++) {
        PyObject *entity = Py_NewRef(PyList_GET_ITEM(settled, i));
        prefetch_entity(settled, i + AHEAD);
        failed = check_entity(entity) < 0;
        for (int s = S_LOOK; s <= S_BPARTS && !failed; s++) {
            if (SLOT(entity, s) == NULL) {
                missing(entity, s);
                failed = 1;
            }
        }
        if (!failed && written != NULL) {
            /* Held while the tuple is made: its allocation may start the collector's callbacks. */
            PyObject *look = Py_NewRef(SLOT(entity, S_LOOK)), *parts = Py_NewRef(SLOT(entity, S_PARTS));
            PyObject *row = PyTuple_Pack(3, entity, look, parts);
            failed = row == NULL || PyList_Append(written, row) < 0;
            Py_XDECREF(row);
            Py_DECREF(look);
            Py_DECREF(parts);
        }
        /* The tuple's allocation may have run anything: the slots are read again. */
        for (int s = S_LOOK; s <= S_PARTS && !failed; s++) {
            PyObject *pending = SLOT(entity, s + S_BLOOK - S_LOOK);
            if (pending == NULL) {
                missing(entity, s + S_BLOOK - S_LOOK);
                failed = 1;
            }
            else {
                slot_set(entity, s, pending);   /* what it let go of may run a finalizer */
            }
        }
        Py_DECREF(entity);
    }
    Py_XDECREF(written);
    Py_DECREF(settled);
    if (failed) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* -- checkpoints: keep and put back ------------------------------------------------------- */

/* What a checkpoint keeps of every entity: a row of references, in this order, copied out of
 * the slots in one pass; and, for the few entities whose other kept slots (``_prest``,
 * ``_signals``, ``_random``, ``_look``, ``_parts``, in this order) are not the defaults a
 * motion-only entity that shows its class's look has (``()``, the shared empty signals dict,
 * ``None``, ``None``, ``None``), those five as well. */
#define KEPT_WIDTH 7
static const int kept_slots[KEPT_WIDTH] = {S_X, S_Y, S_ANGLE, S_PX, S_PY, S_PA, S_PREV_TICK};
#define EXTRA_WIDTH 5
/* A kept row: the KEPT_WIDTH slots, then the entity's class (a game may swap it: the rollback
 * makes it that class again before anything is put back, kept.py's restore). */
#define ROW_WIDTH (KEPT_WIDTH + 1)
static const int extra_slots[EXTRA_WIDTH] = {S_PREST, S_SIGNALS, S_RANDOM, S_LOOK, S_PARTS};
/* Every slot keep() reads, in the order kept.py's pure path reads them: the same error first. */
static const int read_slots[KEPT_WIDTH + EXTRA_WIDTH] = {S_X, S_Y, S_ANGLE, S_PX, S_PY, S_PA, S_PREST,
                                                         S_PREV_TICK, S_LOOK, S_PARTS, S_SIGNALS, S_RANDOM};
/* The classes ``keep`` lists; past this many, it returns None and the caller finds them. */
#define KEPT_KINDS 32
static PyObject *minus_one = NULL;     /* the ``_random_mark`` a rollback leaves: -1 */
static PyObject *empty_tuple = NULL;   /* ``()`` */

/* keep() and put_back() read every slot of an entity and the values they hold: ask for all of
 * the entity's lines a few places ahead, and for the objects its changing slots point to
 * (x, y, angle and their previous values, whose reference counts change) half as far ahead,
 * when its lines have had time to arrive. */
static inline void
prefetch_kept(PyObject *list, Py_ssize_t i)
{
#if defined(__GNUC__) || defined(__clang__)
    Py_ssize_t size = PyList_GET_SIZE(list);
    if (i + AHEAD < size) {
        char *entity = (char *)PyList_GET_ITEM(list, i + AHEAD);
        for (Py_ssize_t line = 0; line < kept_end; line += 64) {
            __builtin_prefetch(entity + line, 1);
        }
    }
    if (i + AHEAD / 2 < size && is_entity(PyList_GET_ITEM(list, i + AHEAD / 2))) {
        PyObject *entity = PyList_GET_ITEM(list, i + AHEAD / 2);
        for (int k = 0; k < 6; k++) {
            PyObject *value = SLOT(entity, kept_slots[k]);
            if (value != NULL) {
                __builtin_prefetch(value, 1);
            }
        }
    }
#else
    (void)list;
    (void)i;
#endif
}

/* A growable array of references or indices in PyMem memory: growing it runs no Python code. */
typedef struct {
    void **items;
    Py_ssize_t count, room;
} Pile;

static int
pile_push(Pile *pile, void *item)
{
    if (pile->count == pile->room) {
        Py_ssize_t room = pile->room ? pile->room * 2 : 64;
        void **larger = PyMem_Realloc(pile->items, sizeof(void *) * (size_t)room);
        if (larger == NULL) {
            return -1;
        }
        pile->items = larger;
        pile->room = room;
    }
    pile->items[pile->count++] = item;
    return 0;
}

/* keep(entities, no_signals) -> (rows, odd, extras, kinds): ``rows`` is one tuple of KEPT_WIDTH
 * references per entity, row after row; ``odd`` the indices of the entities whose other slots
 * are not the defaults, or that hold more than slots (fields of their own: ``_motion_only`` not
 * True), for the caller to look at; ``extras`` their EXTRA_WIDTH slots each, in the order of
 * ``odd``; ``kinds`` the classes of the entities (or None: too many). The pass calls no Python
 * code and allocates nothing the collector sees: the rows are allocated before it (and the
 * list's length read again after, since the collector may run code), the rest after it. */
static PyObject *
core_keep(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "keep(entities, no_signals) takes 2 arguments");
        return NULL;
    }
    PyObject *entities = args[0], *no_signals = args[1];
    if (check_list(entities, "entities") < 0) {
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(entities);
    if (count > PY_SSIZE_T_MAX / ROW_WIDTH / (Py_ssize_t)sizeof(PyObject *)) {
        return PyErr_NoMemory();
    }
    PyObject *rows = PyTuple_New(count * ROW_WIDTH);
    if (rows == NULL) {
        return NULL;
    }
    Pile odd = {NULL, 0, 0}, extra = {NULL, 0, 0};   /* indices; references held */
    PyTypeObject *kinds[KEPT_KINDS];
    int kind_count = 0, too_many = 0;
    if (PyList_GET_SIZE(entities) != count) {
        PyErr_SetString(PyExc_RuntimeError, "keep: the list of entities changed while it was read");
        goto failed;
    }
    PyTypeObject *last = NULL;
    PyObject **row = &PyTuple_GET_ITEM(rows, 0);
    for (Py_ssize_t i = 0; i < count; i++, row += ROW_WIDTH) {
        PyObject *entity = PyList_GET_ITEM(entities, i);
        prefetch_kept(entities, i);
        if (check_entity(entity) < 0) {
            goto failed;
        }
        for (int k = 0; k < KEPT_WIDTH + EXTRA_WIDTH; k++) {
            if (SLOT(entity, read_slots[k]) == NULL) {
                missing(entity, read_slots[k]);
                goto failed;
            }
        }
        for (int k = 0; k < KEPT_WIDTH; k++) {
            row[k] = Py_NewRef(SLOT(entity, kept_slots[k]));
        }
        row[KEPT_WIDTH] = Py_NewRef((PyObject *)Py_TYPE(entity));
        PyObject *prest = SLOT(entity, S_PREST);
        if (SLOT(entity, S_MOTION_ONLY) != Py_True || SLOT(entity, S_RANDOM) != Py_None
                || SLOT(entity, S_SIGNALS) != no_signals || !PyTuple_CheckExact(prest) || PyTuple_GET_SIZE(prest)
                || SLOT(entity, S_LOOK) != Py_None || SLOT(entity, S_PARTS) != Py_None) {
            if (pile_push(&odd, (void *)i) < 0) {
                PyErr_NoMemory();
                goto failed;
            }
            for (int k = 0; k < EXTRA_WIDTH; k++) {
                if (pile_push(&extra, SLOT(entity, extra_slots[k])) < 0) {
                    PyErr_NoMemory();
                    goto failed;
                }
                Py_INCREF(SLOT(entity, extra_slots[k]));
            }
        }
        PyTypeObject *type = Py_TYPE(entity);
        if (type != last && !too_many) {
            int seen = 0;
            for (int j = 0; j < kind_count && !seen; j++) {
                seen = kinds[j] == type;
            }
            if (!seen) {
                if (kind_count == KEPT_KINDS) {
                    too_many = 1;
                }
                else {
                    kinds[kind_count++] = type;
                }
            }
            last = type;
        }
    }
    /* Held before anything is allocated: the collector could let go of the last entity of a class. */
    if (too_many) {
        kind_count = 0;
    }
    for (int j = 0; j < kind_count; j++) {
        Py_INCREF(kinds[j]);
    }
    /* Each container is filled before the next allocation: the collector that one may start can
     * run code that walks every tuple and list it tracks, which must never hold a NULL. */
    PyObject *extras = PyTuple_New(extra.count);
    for (Py_ssize_t j = 0; j < extra.count; j++) {
        if (extras != NULL) {
            PyTuple_SET_ITEM(extras, j, (PyObject *)extra.items[j]);
        }
        else {
            Py_DECREF((PyObject *)extra.items[j]);
        }
    }
    PyObject *classes = too_many ? Py_NewRef(Py_None) : PyList_New(kind_count);
    for (int j = 0; j < kind_count; j++) {
        if (classes != NULL) {
            PyList_SET_ITEM(classes, j, (PyObject *)kinds[j]);
        }
        else {
            Py_DECREF(kinds[j]);
        }
    }
    PyObject *indices = PyList_New(0);
    for (Py_ssize_t j = 0; j < odd.count && indices != NULL; j++) {
        PyObject *index = PyLong_FromSsize_t((Py_ssize_t)odd.items[j]);
        if (index == NULL || PyList_Append(indices, index) < 0) {
            Py_CLEAR(indices);
        }
        Py_XDECREF(index);
    }
    PyMem_Free(odd.items);
    PyMem_Free(extra.items);
    if (indices == NULL || extras == NULL || classes == NULL) {
        Py_XDECREF(indices);
        Py_XDECREF(extras);
        Py_XDECREF(classes);
        Py_DECREF(rows);
        return NULL;
    }
    return Py_BuildValue("(NNNN)", rows, indices, extras, classes);

failed:
    /* Every value held here is also an entity's, and no code ran since it was read: nothing is freed. */
    for (Py_ssize_t j = 0; j < extra.count; j++) {
        Py_DECREF((PyObject *)extra.items[j]);
    }
    PyMem_Free(odd.items);
    PyMem_Free(extra.items);
    Py_DECREF(rows);
    return NULL;
}

/* Store a new reference to ``value`` in a slot. The old value is released at once where that
 * cannot free it (another reference remains) or where freeing it runs no code (a float or an
 * int); else it waits in ``spent``, released once the rollback is whole (put_back made room
 * in ``spent`` for every slot it sets, so the note cannot fail). */
static inline void
put_slot(PyObject *entity, int s, PyObject *value, Pile *spent)
{
    PyObject **where = SLOT_AT(entity, s), *old = *where;
    if (old == value) {
        return;
    }
    Py_INCREF(value);
    *where = value;
    if (old == NULL) {
        return;
    }
    if (Py_REFCNT(old) > 1 || inert(old)) {
        Py_DECREF(old);
        return;
    }
    /* Never fails: put_back made room for every slot it sets. */
    spent->items[spent->count++] = old;
}

/* put_back(entities, rows, odd, extras, no_signals) -> signalled: every entity holds what
 * ``keep`` kept of it again (the defaults where it is not in ``odd``), its baseline its
 * committed values and ``_random_mark`` -1, as kept.py's put does; returns the entities that
 * hold committed signals, for the next swap to clear. First a check that calls no code (every
 * entity an Entity, as many rows as entities, ``odd`` increasing indices), so nothing is
 * changed if it fails; then one pass that calls no code, allocates nothing the collector sees
 * and frees nothing that could run code; then the list of the signalled and the releases. */
static PyObject *
core_put_back(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "put_back(entities, rows, odd, extras, no_signals) takes 5 arguments");
        return NULL;
    }
    PyObject *entities = args[0], *rows = args[1], *odd = args[2], *extras = args[3], *no_signals = args[4];
    if (check_list(entities, "entities") < 0 || check_list(odd, "odd") < 0) {
        return NULL;
    }
    if (!PyTuple_CheckExact(rows) || !PyTuple_CheckExact(extras)) {
        PyErr_SetString(PyExc_TypeError, "put_back: rows and extras must be tuples from keep()");
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(entities), odd_count = PyList_GET_SIZE(odd);
    if (PyTuple_GET_SIZE(rows) != count * ROW_WIDTH || PyTuple_GET_SIZE(extras) != odd_count * EXTRA_WIDTH) {
        PyErr_Format(PyExc_ValueError, "put_back: %zd entities for %zd kept rows", count,
                     PyTuple_GET_SIZE(rows) / ROW_WIDTH);
        return NULL;
    }
    for (Py_ssize_t j = 0; j < odd_count; j++) {
        PyObject *index = PyList_GET_ITEM(odd, j);
        Py_ssize_t at = PyLong_CheckExact(index) ? PyLong_AsSsize_t(index) : -1;
        Py_ssize_t before = j == 0 ? -1 : PyLong_AsSsize_t(PyList_GET_ITEM(odd, j - 1));
        if (at <= before || at >= count) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "put_back: odd must list increasing indices of entities");
            return NULL;
        }
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *entity = PyList_GET_ITEM(entities, i);
        if (check_entity(entity) < 0) {
            return NULL;
        }
        if ((PyObject *)Py_TYPE(entity) != PyTuple_GET_ITEM(rows, i * ROW_WIDTH + KEPT_WIDTH)) {
            PyErr_Format(PyExc_TypeError, "put_back: entity %zd is not of its kept class: restore it first", i);
            return NULL;
        }
    }
    /* Room, before anything changes, for every value the pass may let go of (every slot it
     * sets): the pass can then never fail to note one, and a value it could not note would
     * have to be leaked, since releasing it there may run code. Pages of this room that the
     * pass does not reach are never touched. */
    const Py_ssize_t per_entity = KEPT_WIDTH + EXTRA_WIDTH + 6;
    if (count > PY_SSIZE_T_MAX / per_entity / (Py_ssize_t)sizeof(void *)) {
        return PyErr_NoMemory();
    }
    Pile spent = {NULL, 0, count * per_entity};
    if (spent.room > 0 && (spent.items = PyMem_Malloc(sizeof(void *) * (size_t)spent.room)) == NULL) {
        return PyErr_NoMemory();
    }
    /* The entities whose signals are not the empty dict, noted as the pass goes (all of them,
     * where no room could be had for the note). */
    Pile flagged = {NULL, 0, 0};
    int scan_all = 0;
    Py_ssize_t next = 0, next_index = odd_count ? PyLong_AsSsize_t(PyList_GET_ITEM(odd, 0)) : -1;
    PyObject *defaults[EXTRA_WIDTH] = {empty_tuple, no_signals, Py_None, Py_None, Py_None};
    PyObject **row = &PyTuple_GET_ITEM(rows, 0);
    for (Py_ssize_t i = 0; i < count; i++, row += ROW_WIDTH) {
        PyObject *entity = PyList_GET_ITEM(entities, i);
        prefetch_kept(entities, i);
        for (int k = 0; k < KEPT_WIDTH; k++) {
            put_slot(entity, kept_slots[k], row[k], &spent);
        }
        PyObject **extra = defaults;
        if (i == next_index) {
            extra = &PyTuple_GET_ITEM(extras, next * EXTRA_WIDTH);
            next++;
            next_index = next < odd_count ? PyLong_AsSsize_t(PyList_GET_ITEM(odd, next)) : -1;
            PyObject *signals = extra[1];
            if (!scan_all && !(PyDict_CheckExact(signals) && PyDict_GET_SIZE(signals) == 0)
                    && pile_push(&flagged, (void *)i) < 0) {
                scan_all = 1;
            }
        }
        for (int k = 0; k < EXTRA_WIDTH; k++) {
            put_slot(entity, extra_slots[k], extra[k], &spent);
        }
        put_slot(entity, S_BX, row[0], &spent);
        put_slot(entity, S_BY, row[1], &spent);
        put_slot(entity, S_BA, row[2], &spent);
        put_slot(entity, S_BLOOK, extra[3], &spent);   /* the committed look and parts, as x's in _bx */
        put_slot(entity, S_BPARTS, extra[4], &spent);
        put_slot(entity, S_RANDOM_MARK, minus_one, &spent);
    }
    /* Every entity is consistent: code may run from here on. The entities with committed
     * signals, as the pure path lists them (``if entity._signals``): read again at every step,
     * since a ``__bool__`` or the collector may change anything. */
    PyObject *signalled = PyList_New(0);
    Py_ssize_t steps = scan_all ? count : flagged.count;
    for (Py_ssize_t j = 0; signalled != NULL && j < steps; j++) {
        Py_ssize_t i = scan_all ? j : (Py_ssize_t)flagged.items[j];
        if (i >= PyList_GET_SIZE(entities)) {
            break;
        }
        PyObject *entity = Py_NewRef(PyList_GET_ITEM(entities, i));
        PyObject *signals = is_entity(entity) ? SLOT(entity, S_SIGNALS) : NULL;
        int truth = -1;
        if (signals == NULL) {
            if (check_entity(entity) == 0) {
                missing(entity, S_SIGNALS);
            }
        }
        else if (PyDict_CheckExact(signals)) {
            truth = PyDict_GET_SIZE(signals) != 0;
        }
        else {
            Py_INCREF(signals);
            truth = PyObject_IsTrue(signals);
            Py_DECREF(signals);
        }
        if (truth < 0 || (truth == 1 && PyList_Append(signalled, entity) < 0)) {
            Py_CLEAR(signalled);
        }
        Py_DECREF(entity);
    }
    PyMem_Free(flagged.items);
    /* Now the releases, which may run any code, even another rollback. */
    for (Py_ssize_t j = 0; j < spent.count; j++) {
        Py_DECREF((PyObject *)spent.items[j]);
    }
    PyMem_Free(spent.items);
    return signalled;
}

/* changed_classes(entities, rows) -> [index, ...]: the entities whose class is not the one
 * ``keep`` kept for them in ``rows`` (pointer comparisons: no code runs). */
static PyObject *
core_changed_classes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "changed_classes(entities, rows) takes 2 arguments");
        return NULL;
    }
    PyObject *entities = args[0], *rows = args[1];
    if (check_list(entities, "entities") < 0) {
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(entities);
    if (!PyTuple_CheckExact(rows) || PyTuple_GET_SIZE(rows) != count * ROW_WIDTH) {
        PyErr_Format(PyExc_ValueError, "changed_classes: %zd entities for rows that are not keep()'s of them", count);
        return NULL;
    }
    Pile changed = {NULL, 0, 0};
    for (Py_ssize_t i = 0; i < count; i++) {
        if ((PyObject *)Py_TYPE(PyList_GET_ITEM(entities, i)) != PyTuple_GET_ITEM(rows, i * ROW_WIDTH + KEPT_WIDTH)
                && pile_push(&changed, (void *)i) < 0) {
            PyMem_Free(changed.items);
            return PyErr_NoMemory();
        }
    }
    PyObject *indices = PyList_New(0);
    for (Py_ssize_t j = 0; j < changed.count && indices != NULL; j++) {
        PyObject *index = PyLong_FromSsize_t((Py_ssize_t)changed.items[j]);
        if (index == NULL || PyList_Append(indices, index) < 0) {
            Py_CLEAR(indices);
        }
        Py_XDECREF(index);
    }
    PyMem_Free(changed.items);
    return indices;
}

/* -- random generators: a generator's state kept in one copy ------------------------------ */

/* The state of ``_random.Random`` (the Mersenne Twister behind ``random.Random``), as CPython
 * 3.10-3.13 lay it out in Modules/_randommodule.c. ``random_snapshot`` copies it out in one
 * memcpy, where ``getstate()`` builds 625 ints (about 18 µs): a tick saves the state of every
 * entity generator it draws from, for an abort, and a session's checkpoint every tick. The
 * layout is checked when the module loads (the type's size) and again by a round trip in
 * kept.py; where either fails, only getstate()/setstate() are used. */
typedef struct {
    PyObject_HEAD
    int index;
    uint32_t state[624];
} MersenneObject;

static PyTypeObject *random_type = NULL;   /* _random.Random, where its layout is the one above */
#define MERSENNE_BYTES (sizeof(MersenneObject) - offsetof(MersenneObject, index))

static int
check_generator(PyObject *generator)
{
    if (random_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "random_snapshot: this Python's generators are laid out otherwise");
        return -1;
    }
    if (!PyObject_TypeCheck(generator, random_type)) {
        PyErr_Format(PyExc_TypeError, "random_snapshot: expected a random.Random, got %.200s",
                     Py_TYPE(generator)->tp_name);
        return -1;
    }
    return 0;
}

static PyObject *
core_random_snapshot(PyObject *module, PyObject *generator)
{
    if (check_generator(generator) < 0) {
        return NULL;
    }
    return PyBytes_FromStringAndSize((const char *)&((MersenneObject *)generator)->index, MERSENNE_BYTES);
}

static PyObject *
core_random_restore(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "random_restore(generator, snapshot) takes 2 arguments");
        return NULL;
    }
    PyObject *generator = args[0], *snapshot = args[1];
    if (check_generator(generator) < 0) {
        return NULL;
    }
    if (!PyBytes_CheckExact(snapshot) || PyBytes_GET_SIZE(snapshot) != (Py_ssize_t)MERSENNE_BYTES) {
        PyErr_SetString(PyExc_ValueError, "random_restore: not a snapshot random_snapshot made");
        return NULL;
    }
    int index;
    memcpy(&index, PyBytes_AS_STRING(snapshot), sizeof(int));
    if (index < 0 || index > 624) {
        PyErr_SetString(PyExc_ValueError, "random_restore: not a snapshot random_snapshot made");
        return NULL;
    }
    memcpy(&((MersenneObject *)generator)->index, PyBytes_AS_STRING(snapshot), MERSENNE_BYTES);
    Py_RETURN_NONE;
}

/* -- the renderer's gather ---------------------------------------------------------------- */

static const char *gather_fields[6] = {"x", "y", "angle", "previous x", "previous y", "previous angle"};

#define GATHER_OUT "gather_motion: out must be a writable, contiguous, native float32 buffer of at least " \
                   "len(entities) * 3 values"

/* A value as a double, with no call into Python: floats and ints (subclasses read as
 * what they are, never through an overridden ``__float__``); anything else is refused,
 * naming the entity and the field, as the numpy path does. */
static int
number_of(PyObject *value, double *out, PyObject *entity, int field)
{
    if (PyFloat_Check(value)) {
        *out = PyFloat_AS_DOUBLE(value);
        return 0;
    }
    if (PyLong_Check(value)) {
        *out = PyLong_AsDouble(value);
        return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
    }
    /* The message reads the entity's id: hold both, the lookup may call out. */
    Py_INCREF(entity);
    Py_INCREF(value);
    PyObject *id = PyObject_GetAttrString(entity, "id");
    if (id == NULL) {
        PyErr_Clear();
        id = Py_NewRef(Py_None);
    }
    PyErr_Format(PyExc_TypeError, "gather_motion: %s %R's %s is a %s, not a number: x, y and angle must be "
                 "floats or ints", short_name(Py_TYPE(entity)), id, gather_fields[field],
                 short_name(Py_TYPE(value)));
    Py_DECREF(id);
    Py_DECREF(value);
    Py_DECREF(entity);
    return -1;
}

/* The common cases of ``number_of``, inline: a float, or an int of one digit (every position
 * a game keeps in an int), converted as PyLong_AsDouble converts it (exactly), without the
 * calls and subtype tests: a gather of int positions took twice as long as one of floats. */
static inline int
as_number(PyObject *value, double *out, PyObject *entity, int field)
{
    if (PyFloat_CheckExact(value)) {
        *out = PyFloat_AS_DOUBLE(value);
        return 0;
    }
    if (PyLong_CheckExact(value)) {
#if PY_VERSION_HEX >= 0x030C0000
        if (PyUnstable_Long_IsCompact((PyLongObject *)value)) {
            *out = (double)PyUnstable_Long_CompactValue((PyLongObject *)value);
            return 0;
        }
#else
        Py_ssize_t size = Py_SIZE(value);
        if (size >= -1 && size <= 1) {
            *out = (double)(size * (Py_ssize_t)((PyLongObject *)value)->ob_digit[0]);
            return 0;
        }
#endif
    }
    return number_of(value, out, entity, field);
}

/* Whether two ints are equal (``value`` an exact int): compared inline where both have one
 * digit (a tick count below 2**30), else by ``==``, which for ints calls nothing of the game's.
 * Past tick 256 the tick counts are different objects, and the comparison was a fifth of
 * the gather. */
static inline int
same_int(PyObject *value, PyObject *other)
{
    if (PyLong_CheckExact(other)) {
#if PY_VERSION_HEX >= 0x030C0000
        if (PyUnstable_Long_IsCompact((PyLongObject *)value) && PyUnstable_Long_IsCompact((PyLongObject *)other)) {
            return PyUnstable_Long_CompactValue((PyLongObject *)value)
                   == PyUnstable_Long_CompactValue((PyLongObject *)other);
        }
#else
        /* A zero may hold no digit at all before 3.11: its digit is never read. */
        Py_ssize_t size = Py_SIZE(value), other_size = Py_SIZE(other);
        if (size >= -1 && size <= 1 && other_size >= -1 && other_size <= 1) {
            Py_ssize_t a = size == 0 ? 0 : size * (Py_ssize_t)((PyLongObject *)value)->ob_digit[0];
            Py_ssize_t b = other_size == 0 ? 0 : other_size * (Py_ssize_t)((PyLongObject *)other)->ob_digit[0];
            return a == b;
        }
#endif
    }
    return PyObject_RichCompareBool(value, other, Py_EQ) == 1;
}

/* Python's float % (the result takes the sign of the divisor), as numpy.remainder. */
static inline double
py_mod(double a, double b)
{
    double mod = fmod(a, b);
    if (mod) {
        if ((b < 0) != (mod < 0)) {
            mod += b;
        }
    }
    else {
        mod = copysign(0.0, b);
    }
    return mod;
}

static int
native_float32(const char *format)
{
#if PY_BIG_ENDIAN
    const char *explicit = ">f";
#else
    const char *explicit = "<f";
#endif
    return format != NULL && (strcmp(format, "f") == 0 || strcmp(format, "@f") == 0 || strcmp(format, "=f") == 0
                              || strcmp(format, explicit) == 0);
}

/* One row of the gather: ``alpha`` of the way from the previous (x, y, angle) to the
 * current one (or beyond it), in double precision, rounded once to float32. ``turn`` is
 * the angle's change the short way round (an fmod: worked out once for both rows of a pair). */
static inline void
write_row(float *row, const double number[6], double turn, double alpha, int extrapolate)
{
    double x = number[0], y = number[1], angle = number[2], px = number[3], py = number[4];
    if (extrapolate) {
        row[0] = (float)(x + (x - px) * alpha);
        row[1] = (float)(y + (y - py) * alpha);
        row[2] = (float)(angle + turn * alpha);
    }
    else {
        row[0] = (float)(px + (x - px) * alpha);
        row[1] = (float)(py + (y - py) * alpha);
        row[2] = (float)(angle - turn * (1.0 - alpha));
    }
    /* A NaN's sign and payload depend on how the C compiler and numpy order the
     * arithmetic: write the one canonical NaN, as the numpy fallback does. */
    for (int k = 0; k < 3; k++) {
        if (isnan(row[k])) {
            row[k] = NAN;
        }
    }
}

/* Asks for ``object``'s buffer as a writable, C-contiguous, native float32 one (its length
 * is the caller's to check); on a refusal, ``message`` as a TypeError (other errors, such
 * as a MemoryError, pass through). */
static int
float32_buffer(PyObject *object, Py_buffer *view, const char *message)
{
    if (PyObject_GetBuffer(object, view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        if (PyErr_ExceptionMatches(PyExc_TypeError) || PyErr_ExceptionMatches(PyExc_ValueError)
                || PyErr_ExceptionMatches(PyExc_BufferError)) {
            PyErr_SetString(PyExc_TypeError, message);
        }
        return -1;
    }
    if (view->readonly || view->itemsize != 4 || !native_float32(view->format)) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_TypeError, message);
        return -1;
    }
    return 0;
}

/* The gather's walk: every entity's six numbers, read once, written as a row at ``alpha``
 * into ``first`` and, when ``second`` is not NULL, at ``alpha_second`` into ``second``.
 * It calls no Python code on its way (numbers are read, never converted by a method; the
 * previous tick is compared only when it is an int): the entities are the list's,
 * borrowed, and nothing can change them under it. Only a refusal's message calls out,
 * after which nothing is read. The rows before a refused entity are written. */
static int
gather_walk(PyObject *entities, PyObject *tick, Py_ssize_t count, float *first, double alpha, float *second,
            double alpha_second, int extrapolate)
{
    for (Py_ssize_t i = 0; i < count && i < PyList_GET_SIZE(entities); i++) {
        PyObject *entity = PyList_GET_ITEM(entities, i);
        if (!is_entity(entity)) {
            if (slots_type == NULL) {
                PyErr_SetString(PyExc_RuntimeError, "engine.buffering._core is not configured");
            }
            else {
                PyErr_Format(PyExc_TypeError, "gather_motion: expected an Entity, got %s",
                             short_name(Py_TYPE(entity)));
            }
            return -1;
        }
        PyObject *values[6];
        for (int k = 0; k < 3; k++) {
            if ((values[k] = SLOT(entity, S_X + k)) == NULL) {
                missing(entity, S_X + k);
                return -1;
            }
        }
        PyObject *prev_tick = SLOT(entity, S_PREV_TICK);
        if (prev_tick == NULL) {
            missing(entity, S_PREV_TICK);
            return -1;
        }
        /* Only ever an int the buffers set; anything else has not moved (and is not compared). */
        int same = prev_tick == tick || (PyLong_CheckExact(prev_tick) && same_int(prev_tick, tick));
        for (int k = 0; k < 3; k++) {
            if (!same) {
                values[3 + k] = values[k];
            }
            else if ((values[3 + k] = SLOT(entity, S_PX + k)) == NULL) {
                missing(entity, S_PX + k);
                return -1;
            }
        }
        double number[6];
        for (int k = 0; k < 6; k++) {
            if (as_number(values[k], &number[k], entity, k) < 0) {
                return -1;
            }
        }
        /* Not turned (the common case): the bits the fmod would give, +0.0, without it. */
        double turn = number[2] == number[5] && isfinite(number[2]) ? 0.0
                      : py_mod(number[2] - number[5] + 180.0, 360.0) - 180.0;
        write_row(first + 3 * i, number, turn, alpha, extrapolate);
        if (second != NULL) {
            write_row(second + 3 * i, number, turn, alpha_second, extrapolate);
        }
    }
    return 0;
}

static PyObject *
core_gather_motion(PyObject *module, PyObject *args, PyObject *kwargs)
{
    PyObject *entities, *tick, *out_object;
    double alpha;
    int extrapolate = 0;
    static char *keywords[] = {"entities", "tick", "alpha", "out", "extrapolate", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!OdO|p:gather_motion", keywords, &PyList_Type, &entities,
                                     &tick, &alpha, &out_object, &extrapolate)) {
        return NULL;
    }
    if (!PyLong_CheckExact(tick)) {
        PyErr_Format(PyExc_TypeError, "gather_motion: tick must be an int, got %s", short_name(Py_TYPE(tick)));
        return NULL;
    }
    Py_buffer view;
    if (float32_buffer(out_object, &view, GATHER_OUT) < 0) {
        return NULL;
    }
    /* Read after the buffer: asking for it may have run Python code. */
    Py_ssize_t count = PyList_GET_SIZE(entities);
    PyObject *result = NULL;
    if (view.len / 12 < count) {
        PyErr_SetString(PyExc_TypeError, GATHER_OUT);
    }
    else if (gather_walk(entities, tick, count, (float *)view.buf, alpha, NULL, 0.0, extrapolate) == 0) {
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&view);
    return result;
}

#define GATHER_PAIR_OUT "gather_motion: previous and current must each be a writable, contiguous, native float32 " \
                        "buffer of at least len(entities) * 3 values"

/* The renderer's per-tick gather in one walk: what gather_motion writes at alpha 0 into
 * ``previous`` and at alpha 1 into ``current`` (the same arithmetic, so the same bits). */
static PyObject *
core_gather_pair(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "gather_pair(entities, tick, previous, current) takes 4 arguments");
        return NULL;
    }
    PyObject *entities = args[0], *tick = args[1];
    if (check_list(entities, "entities") < 0) {
        return NULL;
    }
    if (!PyLong_CheckExact(tick)) {
        PyErr_Format(PyExc_TypeError, "gather_motion: tick must be an int, got %s", short_name(Py_TYPE(tick)));
        return NULL;
    }
    /* Hold the arguments: asking for a buffer may run Python code. */
    Py_INCREF(entities);
    Py_INCREF(tick);
    PyObject *result = NULL;
    Py_buffer previous, current;
    if (float32_buffer(args[2], &previous, GATHER_PAIR_OUT) < 0) {
        goto held;
    }
    if (float32_buffer(args[3], &current, GATHER_PAIR_OUT) < 0) {
        goto first;
    }
    /* Read after both buffers: asking for them may have run Python code. */
    Py_ssize_t count = PyList_GET_SIZE(entities);
    if (previous.len / 12 < count || current.len / 12 < count) {
        PyErr_SetString(PyExc_TypeError, GATHER_PAIR_OUT);
    }
    else if (gather_walk(entities, tick, count, (float *)previous.buf, 0.0, (float *)current.buf, 1.0, 0) == 0) {
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&current);
first:
    PyBuffer_Release(&previous);
held:
    Py_DECREF(tick);
    Py_DECREF(entities);
    return result;
}

/* -- spawn: a new entity's slots ------------------------------------------------------------ */

/* The offset of ``_inboxes`` in the slots class (the core reads no other slot of the signals'
 * inboxes, so it is not one of the table's): found once per configured class. */
static PyTypeObject *inboxes_type = NULL;   /* not a reference: compared only, set with slots_type */
static Py_ssize_t inboxes_offset = 0;

static int
find_inboxes(void)
{
    if (inboxes_type == slots_type && inboxes_offset > 0) {
        return 0;
    }
    PyObject *descriptor = PyDict_GetItemString(slots_type->tp_dict, "_inboxes");
    if (descriptor == NULL || !Py_IS_TYPE(descriptor, &PyMemberDescr_Type)
            || ((PyMemberDescrObject *)descriptor)->d_member->type != T_OBJECT_EX
            || (((PyMemberDescrObject *)descriptor)->d_member->flags & READONLY)) {
        PyErr_Format(PyExc_TypeError, "%.200s has no plain writable slot _inboxes", slots_type->tp_name);
        return -1;
    }
    inboxes_offset = ((PyMemberDescrObject *)descriptor)->d_member->offset;
    inboxes_type = slots_type;
    return 0;
}

/* init_entity(entity, motion_only, no_signals) -> whether ``_blook`` was set before (what
 * ``hasattr(entity, "_blook")`` said, without its AttributeError): ``engine.buffering.buffers.init_entity``'s stores
 * of the bookkeeping slots, in C (a new entity's constructor made some twenty writes through the
 * barrier). The same values as the pure twin: the baseline, pending and previous slots hold the
 * entity's x, y and angle; no fields set aside; no previous tick; no signals, generator, world
 * state or inboxes. What it shows is set by the caller. */
static PyObject *
core_init_entity(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "init_entity(entity, motion_only, no_signals) takes 3 arguments");
        return NULL;
    }
    PyObject *entity = args[0], *only = args[1], *no_signals = args[2];
    if (check_entity(entity) < 0 || find_inboxes() < 0) {
        return NULL;
    }
    if (!PyBool_Check(only)) {
        PyErr_Format(PyExc_TypeError, "init_entity: motion_only must be a bool, got %.200s", short_name(Py_TYPE(only)));
        return NULL;
    }
    PyObject *motion[3];
    for (int k = 0; k < 3; k++) {
        if ((motion[k] = slot_get(entity, S_X + k)) == NULL) {
            return NULL;
        }
    }
    static const int from[][3] = {{S_BX, S_PX, S_NX}, {S_BY, S_PY, S_NY}, {S_BA, S_PA, S_NA}};
    static const int nones[] = {S_RANDOM, S_WSTATE, S_WMARK, S_SMARK};
    int own_shown = SLOT(entity, S_BLOOK) != NULL;   /* its __init__ set what it shows before Entity's */
    PyObject *spent[24];
    int n = 0;
    /* Every new value is stored first, then the old ones are released: releasing one may run code. */
#define PUT(where, value) do { PyObject **at_ = (where); spent[n++] = *at_; *at_ = Py_NewRef(value); } while (0)
    PUT(SLOT_AT(entity, S_MOTION_ONLY), only);
    for (int k = 0; k < 3; k++) {
        for (int j = 0; j < 3; j++) {
            PUT(SLOT_AT(entity, from[k][j]), motion[k]);
        }
    }
    PUT(SLOT_AT(entity, S_BFULL), empty_tuple);
    PUT(SLOT_AT(entity, S_NFULL), empty_tuple);
    PUT(SLOT_AT(entity, S_PREST), empty_tuple);
    PUT(SLOT_AT(entity, S_PREV_TICK), minus_one);
    PUT(SLOT_AT(entity, S_SIGNALS), no_signals);
    PUT(SLOT_AT(entity, S_RANDOM_MARK), minus_one);
    for (size_t k = 0; k < sizeof(nones) / sizeof(nones[0]); k++) {
        PUT(SLOT_AT(entity, nones[k]), Py_None);
    }
    PUT((PyObject **)((char *)entity + inboxes_offset), Py_None);
#undef PUT
    Py_INCREF(entity);
    for (int k = 0; k < n; k++) {
        Py_XDECREF(spent[k]);
    }
    Py_DECREF(entity);
    return PyBool_FromLong(own_shown);
}

/* fill_missing(entity, pairs): ``if not hasattr(entity, name): setattr(entity, name, default)`` for
 * each ``(name, default)`` of the tuple ``pairs``, in order (``Entity.__init__``'s defaults), without
 * making the AttributeError each missing name made in Python: a new entity misses them all. */
static PyObject *
core_fill_missing(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "fill_missing(entity, pairs) takes 2 arguments");
        return NULL;
    }
    PyObject *entity = args[0], *pairs = args[1];
    if (!PyTuple_CheckExact(pairs)) {
        PyErr_Format(PyExc_TypeError, "fill_missing: pairs must be a tuple, got %.200s", short_name(Py_TYPE(pairs)));
        return NULL;
    }
    Py_INCREF(entity);
    Py_INCREF(pairs);   /* a tuple: nothing run below can change what it holds */
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pairs); i++) {
        PyObject *pair = PyTuple_GET_ITEM(pairs, i);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2 || !PyUnicode_Check(PyTuple_GET_ITEM(pair, 0))) {
            PyErr_SetString(PyExc_TypeError, "fill_missing: each pair must be a (name, default) tuple");
            goto done;
        }
        PyObject *found = NULL, *name = PyTuple_GET_ITEM(pair, 0);
        int has, s = PyUnicode_CheckExact(name) ? slot_named(name) : -1;
        if (s >= 0 && Py_TYPE(entity)->tp_getattro == PyObject_GenericGetAttr && is_entity(entity)
                && _PyType_Lookup(Py_TYPE(entity), name) == slot_descrs[s]) {
            /* One of the engine's slots, read as getattr reads it (its descriptor is found first and
             * gets the slot), without the AttributeError an empty slot's descriptor makes. */
            has = SLOT(entity, s) != NULL;
        }
        else {
#if PY_VERSION_HEX >= 0x030D0000
            has = PyObject_GetOptionalAttr(entity, name, &found);
#else
            has = _PyObject_LookupAttr(entity, name, &found);
#endif
            Py_XDECREF(found);
        }
        if (has < 0 || (has == 0 && PyObject_SetAttr(entity, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1)) < 0)) {
            goto done;
        }
    }
    result = Py_NewRef(Py_None);
done:
    Py_DECREF(pairs);
    Py_DECREF(entity);
    return result;
}

/* -- signals: the send path ---------------------------------------------------------------- */

/* SignalSink: ``SignalBuffers.raise_signal`` in C, what a compiled world's ``TickState.signals``
 * is. It appends a contribution to the world's next buffer, four parallel lists (receiver, name,
 * sender's id or -1, value), the sender being the state's updating entity. The buffers make a new
 * sink whenever they replace the lists (each swap, each rollback). Called once per signal sent, so
 * it takes vectorcall's arguments and makes nothing the collector must track. */
typedef struct {
    PyObject_HEAD
    PyObject *state;      /* the world's TickState */
    PyObject *lists[4];   /* receivers, names, senders' ids, values: exact lists */
    vectorcallfunc vectorcall;
} SignalSink;

static PyTypeObject SignalSinkType;

static PyObject *
signal_sink_call(SignalSink *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 3 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0)) {
        PyErr_SetString(PyExc_TypeError, "SignalSink(receiver, name, value) takes 3 positional arguments");
        return NULL;
    }
    TickState *state = (TickState *)self->state;
    PyObject *sender = state->updating, *sender_id;
    if (sender == NULL) {
        sender_id = Py_NewRef(minus_one);
    }
    else {
        /* ``sender.id`` may run Python code (a class's own ``id``): hold what is used after it. */
        Py_INCREF(sender);
        sender_id = PyObject_GetAttr(sender, str_id);
        Py_DECREF(sender);
        if (sender_id == NULL) {
            return NULL;
        }
        if (sender_id == Py_None) {
            Py_SETREF(sender_id, Py_NewRef(minus_one));
        }
    }
    PyObject *items[4] = {args[0], args[1], sender_id, args[2]};
    Py_INCREF(self);   /* an append may start the collector, whose callbacks may drop this sink */
    int done = 0;
    for (; done < 4; done++) {
        if (PyList_Append(self->lists[done], items[done]) < 0) {
            break;
        }
    }
    if (done < 4) {
        /* Only memory can fail an append: take back the ones made, so the lists stay parallel. */
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        for (int k = 0; k < done; k++) {
            PyObject *list = self->lists[k];
            Py_ssize_t size = PyList_GET_SIZE(list);
            if (size > 0 && PyList_GET_ITEM(list, size - 1) == items[k]) {
                PyList_SetSlice(list, size - 1, size, NULL);
            }
        }
        PyErr_Restore(type, value, traceback);
    }
    Py_DECREF(self);
    Py_DECREF(sender_id);
    if (done < 4) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
signal_sink_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *state, *lists[4];
    static char *keywords[] = {"state", "receivers", "names", "senders", "values", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!O!O!O!:SignalSink", keywords, &TickStateType, &state,
                                     &PyList_Type, &lists[0], &PyList_Type, &lists[1], &PyList_Type, &lists[2],
                                     &PyList_Type, &lists[3])) {
        return NULL;
    }
    for (int k = 0; k < 4; k++) {
        if (!PyList_CheckExact(lists[k])) {
            PyErr_SetString(PyExc_TypeError, "SignalSink: the four buffers must be lists");
            return NULL;
        }
    }
    SignalSink *self = (SignalSink *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->state = Py_NewRef(state);
    for (int k = 0; k < 4; k++) {
        self->lists[k] = Py_NewRef(lists[k]);
    }
    self->vectorcall = (vectorcallfunc)signal_sink_call;
    return (PyObject *)self;
}

static int
signal_sink_traverse(SignalSink *self, visitproc visit, void *arg)
{
    Py_VISIT(self->state);
    for (int k = 0; k < 4; k++) {
        Py_VISIT(self->lists[k]);
    }
    return 0;
}

static int
signal_sink_clear(SignalSink *self)
{
    Py_CLEAR(self->state);
    for (int k = 0; k < 4; k++) {
        Py_CLEAR(self->lists[k]);
    }
    return 0;
}

static void
signal_sink_dealloc(SignalSink *self)
{
    PyObject_GC_UnTrack(self);
    signal_sink_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject SignalSinkType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine.buffering._core.SignalSink",
    .tp_basicsize = sizeof(SignalSink),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "SignalSink(state, receivers, names, senders, values)\n--\n\n"
              "raise_signal(receiver, name, value) in C: one contribution appended to the four lists, "
              "its sender the state's updating entity (engine.buffering.signals).",
    .tp_new = signal_sink_new,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(SignalSink, vectorcall),
    .tp_dealloc = (destructor)signal_sink_dealloc,
    .tp_traverse = (traverseproc)signal_sink_traverse,
    .tp_clear = (inquiry)signal_sink_clear,
};

/* -- signals: reading a declared signal, and a valued signal's send ---------------------------- */

/* An entity's slot ``s`` as ``getattr(obj, name)`` reads it (a new reference, or NULL with the
 * error set): straight from the slot for an entity whose class reads attributes as ``object``
 * does (an ``Entity`` may not override that, nor declare the engine's slots again), else through
 * ``getattr`` itself. */
static inline PyObject *
read_slot(PyObject *obj, Py_ssize_t offset, PyObject *name)
{
    if (offset > 0 && Py_TYPE(obj)->tp_getattro == PyObject_GenericGetAttr && is_entity(obj)) {
        PyObject *value = *(PyObject **)((char *)obj + offset);
        if (value != NULL) {
            return Py_NewRef(value);
        }
    }
    return PyObject_GetAttr(obj, name);
}

static PyObject *str_signals = NULL;   /* "_signals" */
static PyObject *str_inboxes = NULL;   /* "_inboxes" */
static PyObject *str_wstate = NULL;    /* "_wstate" */
static PyObject *str_alive = NULL;     /* "alive" */
static PyObject *str_name = NULL;      /* "name" */
static PyObject *str_inbox = NULL;     /* "_inbox" */
static PyObject *str_sink = NULL;      /* "signals" */

/* SignalField: the base of ``engine.buffering.fields.signal`` where the core runs; its
 * ``__get__`` is ``fields._PureSignalField.__get__`` in C, what ``entity.hit`` and
 * ``entity.damage`` cost at every read: a flag reads whether it arrived; a valued signal returns
 * the entity's inbox for it, made (by the Python ``_inbox``, which both paths call) only the first
 * time. ``combine`` and ``name`` are its slots. */
typedef struct {
    PyObject_HEAD
    PyObject *combine;
    PyObject *name;
} SignalField;

static PyObject *
signal_field_get(SignalField *self, PyObject *instance, PyObject *owner)
{
    if (instance == NULL || instance == Py_None) {
        return Py_NewRef(self);
    }
    if (self->combine == NULL) {   /* never set: the AttributeError reading it in Python raises */
        return PyObject_GetAttrString((PyObject *)self, "combine");
    }
    Py_INCREF(self);   /* the reads below may run code that drops the class, and this descriptor with it */
    Py_INCREF(instance);
    PyObject *result = NULL;
    if (self->combine == Py_None) {
        if (self->name == NULL) {
            result = PyObject_GetAttrString((PyObject *)self, "name");   /* its AttributeError */
            goto done;
        }
        PyObject *name = Py_NewRef(self->name);
        PyObject *arrived = read_slot(instance, offsets[S_SIGNALS], str_signals);
        if (arrived != NULL) {
            int found = PySequence_Contains(arrived, name);
            Py_DECREF(arrived);
            if (found >= 0) {
                result = PyBool_FromLong(found);
            }
        }
        Py_DECREF(name);
        goto done;
    }
    if (slots_type != NULL && find_inboxes() < 0) {
        goto done;
    }
    PyObject *inboxes = read_slot(instance, slots_type != NULL ? inboxes_offset : 0, str_inboxes);
    if (inboxes == NULL) {
        goto done;
    }
    if (PyDict_CheckExact(inboxes)) {
        PyObject *inbox = PyDict_GetItemWithError(inboxes, (PyObject *)self);
        if (inbox != NULL && inbox != Py_None) {
            result = Py_NewRef(inbox);
        }
        else if (inbox != NULL || !PyErr_Occurred()) {
            result = PyObject_CallMethodOneArg((PyObject *)self, str_inbox, instance);
        }
    }
    else {
        result = PyObject_CallMethodOneArg((PyObject *)self, str_inbox, instance);
    }
    Py_DECREF(inboxes);
done:
    Py_DECREF(instance);
    Py_DECREF(self);
    return result;
}

static int
signal_field_traverse(SignalField *self, visitproc visit, void *arg)
{
    Py_VISIT(self->combine);
    Py_VISIT(self->name);
    return 0;
}

static int
signal_field_clear(SignalField *self)
{
    Py_CLEAR(self->combine);
    Py_CLEAR(self->name);
    return 0;
}

static void
signal_field_dealloc(SignalField *self)
{
    /* A Python subclass's instance: its subtype_dealloc releases the class after this. */
    PyObject_GC_UnTrack(self);
    signal_field_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef signal_field_members[] = {
    {"combine", T_OBJECT_EX, offsetof(SignalField, combine), 0, "The function that combines contributions, or None."},
    {"name", T_OBJECT_EX, offsetof(SignalField, name), 0, "The attribute name the signal is declared under."},
    {NULL},
};

static PyTypeObject SignalFieldType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine.buffering._core.SignalField",
    .tp_basicsize = sizeof(SignalField),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The base of a declared signal where the core runs: its __get__ in C (engine.buffering.fields).",
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)signal_field_dealloc,
    .tp_traverse = (traverseproc)signal_field_traverse,
    .tp_clear = (inquiry)signal_field_clear,
    .tp_members = signal_field_members,
    .tp_descr_get = (descrgetfunc)signal_field_get,
};

/* SignalInboxBase: the base of ``engine.buffering.fields.SignalInbox`` where the core runs:
 * ``_entity``, ``_signal`` and ``_name`` (the signal's name, read once when the inbox is made)
 * are its slots, and ``send`` is ``fields._PureInbox.send`` in C: one call a contribution, which
 * hands it straight to the world's ``SignalSink``. */
typedef struct {
    PyObject_HEAD
    PyObject *entity;
    PyObject *signal;
    PyObject *name;
} InboxBase;

static int
inbox_init(InboxBase *self, PyObject *args, PyObject *kwargs)
{
    PyObject *entity, *declared;
    static char *keywords[] = {"entity", "declared", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:SignalInbox", keywords, &entity, &declared)) {
        return -1;
    }
    PyObject *name = PyObject_GetAttr(declared, str_name);
    if (name == NULL) {
        return -1;
    }
    PyObject *old[3] = {self->entity, self->signal, self->name};
    self->entity = Py_NewRef(entity);
    self->signal = Py_NewRef(declared);
    self->name = name;
    for (int k = 0; k < 3; k++) {
        Py_XDECREF(old[k]);
    }
    return 0;
}

static PyObject *
inbox_send(InboxBase *self, PyObject *value)
{
    if (self->entity == NULL) {   /* never set: the AttributeError reading it in Python raises */
        return PyObject_GetAttrString((PyObject *)self, "_entity");
    }
    PyObject *entity = Py_NewRef(self->entity);
    Py_INCREF(self);
    Py_INCREF(value);
    PyObject *result = NULL, *sink = NULL, *name = NULL;
    PyObject *state = read_slot(entity, offsets[S_WSTATE], str_wstate);
    if (state == NULL) {
        goto done;
    }
    if (state == Py_None) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    PyObject *alive = read_slot(entity, offsets[S_ALIVE], str_alive);
    if (alive == NULL) {
        goto done;
    }
    int truth = PyObject_IsTrue(alive);
    Py_DECREF(alive);
    if (truth <= 0) {
        result = truth < 0 ? NULL : Py_NewRef(Py_None);
        goto done;
    }
    if (Py_IS_TYPE(state, &TickStateType)) {   /* a T_OBJECT member: None while unset */
        PyObject *found = ((TickState *)state)->signals;
        sink = Py_NewRef(found == NULL ? Py_None : found);
    }
    else if ((sink = PyObject_GetAttr(state, str_sink)) == NULL) {
        goto done;
    }
    if (self->name == NULL) {   /* never set, or deleted by code the reads above ran: its AttributeError */
        result = PyObject_GetAttrString((PyObject *)self, "_name");
        goto done;
    }
    name = Py_NewRef(self->name);
    PyObject *args[3] = {entity, name, value};
    PyObject *sent = Py_IS_TYPE(sink, &SignalSinkType) ? signal_sink_call((SignalSink *)sink, args, 3, NULL)
                                                        : PyObject_Vectorcall(sink, args, 3, NULL);
    if (sent != NULL) {
        Py_DECREF(sent);
        result = Py_NewRef(Py_None);
    }
done:
    Py_XDECREF(name);
    Py_XDECREF(sink);
    Py_XDECREF(state);
    Py_DECREF(value);
    Py_DECREF(self);
    Py_DECREF(entity);
    return result;
}

static int
inbox_traverse(InboxBase *self, visitproc visit, void *arg)
{
    Py_VISIT(self->entity);
    Py_VISIT(self->signal);
    Py_VISIT(self->name);
    return 0;
}

static int
inbox_clear(InboxBase *self)
{
    Py_CLEAR(self->entity);
    Py_CLEAR(self->signal);
    Py_CLEAR(self->name);
    return 0;
}

static void
inbox_dealloc(InboxBase *self)
{
    /* A Python subclass's instance: its subtype_dealloc releases the class after this. */
    PyObject_GC_UnTrack(self);
    inbox_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef inbox_members[] = {
    {"_entity", T_OBJECT_EX, offsetof(InboxBase, entity), 0, "The entity the inbox is read on."},
    {"_signal", T_OBJECT_EX, offsetof(InboxBase, signal), 0, "The signal declared on its class."},
    {"_name", T_OBJECT_EX, offsetof(InboxBase, name), 0, "The signal's name, read when the inbox was made."},
    {NULL},
};

static PyMethodDef inbox_methods[] = {
    {"send", (PyCFunction)inbox_send, METH_O,
     "send(value)\n--\n\nContribute value: combined with every other contribution and seen next tick."},
    {NULL},
};

static PyTypeObject InboxBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine.buffering._core.SignalInboxBase",
    .tp_basicsize = sizeof(InboxBase),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The base of a valued signal's inbox where the core runs: its send in C (engine.buffering.fields).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)inbox_init,
    .tp_dealloc = (destructor)inbox_dealloc,
    .tp_traverse = (traverseproc)inbox_traverse,
    .tp_clear = (inquiry)inbox_clear,
    .tp_members = inbox_members,
    .tp_methods = inbox_methods,
};

/* ascending(senders) -> True, False or None: ``all(map(operator.le, senders, senders[1:]))`` where
 * that runs no code of anyone's: True when every item is an int (exactly) and none is less than the
 * one before, False when a pair of ints is out of order before anything else is met, None (ask
 * Python) at the first item that is not an int, whose comparison could run code. The senders of a
 * tick's contributions are ids raised in update order: ascending unless the order was shuffled. */
static PyObject *
core_ascending(PyObject *module, PyObject *senders)
{
    if (!PyList_CheckExact(senders)) {
        PyErr_Format(PyExc_TypeError, "ascending: senders must be a list, got %.200s", short_name(Py_TYPE(senders)));
        return NULL;
    }
    /* Comparing two ints calls out to nothing and releases nothing: the list cannot change under the loop. */
    Py_ssize_t n = PyList_GET_SIZE(senders);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyLong_CheckExact(PyList_GET_ITEM(senders, i))) {
            Py_RETURN_NONE;
        }
        if (i > 0) {
            PyObject *before = PyList_GET_ITEM(senders, i - 1), *now = PyList_GET_ITEM(senders, i);
            if (before != now) {
                int overflow_before, overflow_now;
                long long a = PyLong_AsLongLongAndOverflow(before, &overflow_before);
                long long b = PyLong_AsLongLongAndOverflow(now, &overflow_now);
                int in_order;
                if (overflow_before || overflow_now) {
                    in_order = overflow_before != overflow_now ? overflow_before < overflow_now
                                                               : PyObject_RichCompareBool(before, now, Py_LE);
                    if (in_order < 0) {
                        return NULL;
                    }
                }
                else {
                    in_order = a <= b;
                }
                if (!in_order) {
                    Py_RETURN_FALSE;
                }
            }
        }
    }
    Py_RETURN_TRUE;
}

/* group_signals(receivers, names, values, ranked) -> {receiver: {name: [value, ...]}}: the first
 * half of ``SignalBuffers.combine_signals``, the same loop in C. The contributions at the indices
 * of ``ranked`` (a list of ints, walked as Python walks a list; an int n: range(n)), those of
 * receivers no longer ``alive`` left out, grouped by receiver, then by name, each list in that
 * order: the dicts are filled in the same order, with the same lookups (a receiver's own
 * ``__hash__`` and ``__eq__`` run as in Python). Lengths are read again at every step: an
 * ``alive`` or ``__eq__`` of the game's may change the lists, and then an index past their end is
 * an IndexError, as in Python. */
static PyObject *
core_group_signals(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "group_signals(receivers, names, values, ranked) takes 4 arguments");
        return NULL;
    }
    PyObject *receivers = args[0], *names = args[1], *values = args[2], *ranked = args[3];
    if (check_list(receivers, "receivers") < 0 || check_list(names, "names") < 0 || check_list(values, "values") < 0
            || (!PyLong_CheckExact(ranked) && check_list(ranked, "ranked") < 0)) {
        return NULL;
    }
    Py_ssize_t every = -1;   /* ranked is range(every), or a list (-1) */
    if (PyLong_CheckExact(ranked)) {
        every = PyLong_AsSsize_t(ranked);
        if (every == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (every < 0) {
            PyErr_SetString(PyExc_ValueError, "group_signals: a count of contributions is never negative");
            return NULL;
        }
    }
    static PyObject *str_alive = NULL;
    if (str_alive == NULL && (str_alive = PyUnicode_InternFromString("alive")) == NULL) {
        return NULL;
    }
    PyObject *received = PyDict_New();
    if (received == NULL) {
        return NULL;
    }
    Py_INCREF(receivers);
    Py_INCREF(names);
    Py_INCREF(values);
    Py_INCREF(ranked);
    PyObject *target = NULL, *name = NULL, *value = NULL, *result = NULL;
    for (Py_ssize_t k = 0; k < (every >= 0 ? every : PyList_GET_SIZE(ranked)); k++) {
        Py_ssize_t index = k;
        if (every < 0) {
            PyObject *number = PyList_GET_ITEM(ranked, k);
            if (!PyLong_CheckExact(number)) {
                PyErr_Format(PyExc_TypeError, "group_signals: ranked holds a %.200s, not an int",
                             short_name(Py_TYPE(number)));
                goto done;
            }
            index = PyLong_AsSsize_t(number);
            if (index == -1 && PyErr_Occurred()) {
                goto done;
            }
        }
        if (index < 0 || index >= PyList_GET_SIZE(receivers)) {
            PyErr_SetString(PyExc_IndexError, "list index out of range");
            goto done;
        }
        target = Py_NewRef(PyList_GET_ITEM(receivers, index));
        PyObject *alive = PyObject_GetAttr(target, str_alive);
        if (alive == NULL) {
            goto done;
        }
        int living = PyObject_IsTrue(alive);
        Py_DECREF(alive);
        if (living < 0) {
            goto done;
        }
        if (living) {
            PyObject *signals = PyDict_GetItemWithError(received, target);   /* borrowed */
            if (signals == NULL) {
                if (PyErr_Occurred()) {
                    goto done;
                }
                PyObject *made = PyDict_New();
                if (made == NULL || PyDict_SetItem(received, target, made) < 0) {
                    Py_XDECREF(made);
                    goto done;
                }
                Py_DECREF(made);
                signals = made;
            }
            Py_INCREF(signals);   /* a key's __eq__ below may take it out of received */
            if (index >= PyList_GET_SIZE(names)) {
                PyErr_SetString(PyExc_IndexError, "list index out of range");
                Py_DECREF(signals);
                goto done;
            }
            name = Py_NewRef(PyList_GET_ITEM(names, index));
            PyObject *arrived = PyDict_GetItemWithError(signals, name);   /* borrowed */
            int failed = arrived == NULL && PyErr_Occurred();
            if (!failed) {
                Py_XINCREF(arrived);
                if (index >= PyList_GET_SIZE(values)) {
                    PyErr_SetString(PyExc_IndexError, "list index out of range");
                    failed = 1;
                }
                else {
                    value = Py_NewRef(PyList_GET_ITEM(values, index));
                    if (arrived == NULL) {
                        PyObject *fresh = PyList_New(1);
                        failed = fresh == NULL;
                        if (!failed) {
                            PyList_SET_ITEM(fresh, 0, Py_NewRef(value));
                            failed = PyDict_SetItem(signals, name, fresh) < 0;
                            Py_DECREF(fresh);
                        }
                    }
                    else {
                        failed = PyList_Append(arrived, value) < 0;
                    }
                    Py_CLEAR(value);
                }
                Py_XDECREF(arrived);
            }
            Py_DECREF(signals);
            Py_CLEAR(name);
            if (failed) {
                goto done;
            }
        }
        Py_CLEAR(target);
    }
    result = Py_NewRef(received);
done:
    Py_XDECREF(target);
    Py_XDECREF(name);
    Py_XDECREF(value);
    Py_DECREF(ranked);
    Py_DECREF(values);
    Py_DECREF(names);
    Py_DECREF(receivers);
    Py_DECREF(received);
    return result;
}

/* -- the module ---------------------------------------------------------------------------- */

static PyMethodDef core_methods[] = {
    {"configure", (PyCFunction)core_configure, METH_O,
     "configure(cls)\n--\n\nRead the slot offsets of the class that declares the buffer slots."},
    {"commit", (PyCFunction)(void (*)(void))core_commit, METH_FASTCALL,
     "commit(moved, tick)\n--\n\nThe pending x, y, angle of the moved entities committed (previous values "
     "recorded too unless tick is None)."},
    {"record_previous", (PyCFunction)(void (*)(void))core_record_previous, METH_FASTCALL,
     "record_previous(moved, tick)\n--\n\nThe baseline of the moved entities becomes their previous values."},
    {"keep", (PyCFunction)(void (*)(void))core_keep, METH_FASTCALL,
     "keep(entities, no_signals)\n--\n\nFor a checkpoint: (every entity's kept slots, row after row; the indices "
     "of those holding more than the defaults; their other slots; their classes or None)."},
    {"changed_classes", (PyCFunction)(void (*)(void))core_changed_classes, METH_FASTCALL,
     "changed_classes(entities, rows)\n--\n\nThe indices of the entities whose class is not the one keep() kept."},
    {"put_back", (PyCFunction)(void (*)(void))core_put_back, METH_FASTCALL,
     "put_back(entities, rows, odd, extras, no_signals)\n--\n\nA rollback: every entity holds what keep() kept "
     "again; returns those with committed signals."},
    {"gather_motion", (PyCFunction)(void (*)(void))core_gather_motion, METH_VARARGS | METH_KEYWORDS,
     "gather_motion(entities, tick, alpha, out, extrapolate=False)\n--\n\n"
     "Write every entity's interpolated (x, y, angle) into the float32 buffer out."},
    {"commit_shown", (PyCFunction)(void (*)(void))core_commit_shown, METH_FASTCALL,
     "commit_shown(settled, written)\n--\n\n"
     "The looks and parts the settled entities set become committed, their values before appended to written "
     "as (entity, look, parts) unless it is None."},
    {"random_snapshot", (PyCFunction)core_random_snapshot, METH_O,
     "random_snapshot(generator)\n--\n\nA random.Random's Mersenne Twister state, copied into bytes "
     "(its gauss_next is the caller's)."},
    {"random_restore", (PyCFunction)(void (*)(void))core_random_restore, METH_FASTCALL,
     "random_restore(generator, snapshot)\n--\n\nPut back what random_snapshot copied."},
    {"init_entity", (PyCFunction)(void (*)(void))core_init_entity, METH_FASTCALL,
     "init_entity(entity, motion_only, no_signals)\n--\n\nA new entity's bookkeeping slots, as "
     "engine.buffering.buffers.init_entity stores them (what it shows is the caller's); returns whether "
     "its _blook slot was set before."},
    {"ascending", (PyCFunction)core_ascending, METH_O,
     "ascending(senders)\n--\n\nall(map(operator.le, senders, senders[1:])) for a list of ints; None where an item is "
     "not an int (Python compares it)."},
    {"group_signals", (PyCFunction)(void (*)(void))core_group_signals, METH_FASTCALL,
     "group_signals(receivers, names, values, ranked)\n--\n\nThe contributions at ranked's indices (an int n: "
     "range(n)) of receivers still alive, as {receiver: {name: [value, ...]}} (SignalBuffers.combine_signals)."},
    {"fill_missing", (PyCFunction)(void (*)(void))core_fill_missing, METH_FASTCALL,
     "fill_missing(entity, pairs)\n--\n\nsetattr(entity, name, default) for each (name, default) of pairs "
     "that hasattr(entity, name) says it lacks, in order."},
    {"gather_pair", (PyCFunction)(void (*)(void))core_gather_pair, METH_FASTCALL,
     "gather_pair(entities, tick, previous, current)\n--\n\n"
     "In one walk, what gather_motion writes at alpha 0 into previous and at alpha 1 into current."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "engine.buffering._core",
    .m_doc = "The compiled core of the Double Buffer: the tick's per-entity bookkeeping and the "
             "renderer's gather (see engine.buffering.buffers for the protocol).",
    .m_size = -1,
    .m_methods = core_methods,
};

PyMODINIT_FUNC
PyInit__core(void)
{
    /* object's own __new__, which gives instances of Python subclasses CPython's inline
     * attribute values (PyType_GenericNew would leave them a plain dict). */
    BarrierType.tp_new = PyBaseObject_Type.tp_new;
    if (PyType_Ready(&SettlerType) < 0 || PyType_Ready(&ShownFieldType) < 0 || PyType_Ready(&TickStateType) < 0
            || PyType_Ready(&BarrierType) < 0 || PyType_Ready(&SignalSinkType) < 0
            || PyType_Ready(&SignalFieldType) < 0 || PyType_Ready(&InboxBaseType) < 0) {
        return NULL;
    }
    str_signals = PyUnicode_InternFromString("_signals");
    str_inboxes = PyUnicode_InternFromString("_inboxes");
    str_wstate = PyUnicode_InternFromString("_wstate");
    str_alive = PyUnicode_InternFromString("alive");
    str_name = PyUnicode_InternFromString("name");
    str_inbox = PyUnicode_InternFromString("_inbox");
    str_sink = PyUnicode_InternFromString("signals");
    if (str_signals == NULL || str_inboxes == NULL || str_wstate == NULL || str_alive == NULL || str_name == NULL
            || str_inbox == NULL || str_sink == NULL) {
        return NULL;
    }
    str_buffered_names = PyUnicode_InternFromString("_buffered_names");
    str_id = PyUnicode_InternFromString("id");
    interned_motion[0] = PyUnicode_InternFromString("x");
    interned_motion[1] = PyUnicode_InternFromString("y");
    interned_motion[2] = PyUnicode_InternFromString("angle");
    if (str_buffered_names == NULL || str_id == NULL || interned_motion[0] == NULL || interned_motion[1] == NULL
            || interned_motion[2] == NULL) {
        return NULL;
    }
    str_layout = PyUnicode_InternFromString("_layout");
    str_get = PyUnicode_InternFromString("get");
    str_set = PyUnicode_InternFromString("set");
    str_read = PyUnicode_InternFromString("read");
    str_store = PyUnicode_InternFromString("store");
    minus_one = PyLong_FromLong(-1);
    empty_tuple = PyTuple_New(0);
    if (str_layout == NULL || str_get == NULL || str_set == NULL || str_read == NULL || str_store == NULL
            || minus_one == NULL || empty_tuple == NULL) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&core_module);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&SettlerType);
    if (PyModule_AddObject(module, "Settler", (PyObject *)&SettlerType) < 0) {
        Py_DECREF(&SettlerType);
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&ShownFieldType);
    if (PyModule_AddObject(module, "ShownField", (PyObject *)&ShownFieldType) < 0) {
        Py_DECREF(&ShownFieldType);
        Py_DECREF(module);
        return NULL;
    }
    PyObject *random_module = PyImport_ImportModule("_random");
    if (random_module == NULL) {
        Py_DECREF(module);
        return NULL;
    }
    PyObject *found = PyObject_GetAttrString(random_module, "Random");
    Py_DECREF(random_module);
    if (found == NULL) {
        Py_DECREF(module);
        return NULL;
    }
    if (PyType_Check(found) && ((PyTypeObject *)found)->tp_basicsize == (Py_ssize_t)sizeof(MersenneObject)) {
        random_type = (PyTypeObject *)found;   /* kept for the module's life */
    }
    else {
        Py_DECREF(found);
    }
    if (PyModule_AddObjectRef(module, "TickState", (PyObject *)&TickStateType) < 0
            || PyModule_AddObjectRef(module, "Barrier", (PyObject *)&BarrierType) < 0
            || PyModule_AddObjectRef(module, "SignalSink", (PyObject *)&SignalSinkType) < 0
            || PyModule_AddObjectRef(module, "SignalField", (PyObject *)&SignalFieldType) < 0
            || PyModule_AddObjectRef(module, "SignalInboxBase", (PyObject *)&InboxBaseType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
