#pragma once
// An owned reference to a Python object: released when it goes, so early returns on a Python
// error leak nothing.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <utility>

namespace sonde::python_host {

class PyRef {
 public:
  PyRef() = default;
  // Takes over a new reference (nullptr stands for a failed call).
  explicit PyRef(PyObject* owned) : object_(owned) {}
  static PyRef borrowed(PyObject* object) {
    Py_XINCREF(object);
    return PyRef(object);
  }
  PyRef(const PyRef& other) : object_(other.object_) { Py_XINCREF(object_); }
  PyRef(PyRef&& other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
  PyRef& operator=(PyRef other) noexcept {
    std::swap(object_, other.object_);
    return *this;
  }
  ~PyRef() { Py_XDECREF(object_); }

  PyObject* get() const { return object_; }
  // Hands the reference over (to a tuple slot that steals it, say).
  PyObject* release() { return std::exchange(object_, nullptr); }
  explicit operator bool() const { return object_ != nullptr; }

 private:
  PyObject* object_ = nullptr;
};

}  // namespace sonde::python_host
