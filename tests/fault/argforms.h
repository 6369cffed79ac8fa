/* libclsfault.so's enforcement of NVIDIA's rule for kernel argument
 * forms (argforms.c), called by clsfault.c's wrappers. */
#ifndef CLSFAULT_ARGFORMS_H
#define CLSFAULT_ARGFORMS_H

#include <CL/cl.h>

/* Whether CLSFAULT_SVM_ARGS=stick asks for it. */
int clsfault_forms_on(void);
/* k was just made by clCreateKernel: no argument has held anything. */
void clsfault_forms_created(cl_kernel k);
/* Argument i of k was just set: as an SVM pointer (svm), or by
 * clSetKernelArg with a value of `size` bytes. */
void clsfault_forms_set(cl_kernel k, cl_uint i, int svm, size_t size);
/* Whether an enqueue of k is refused (CL_INVALID_KERNEL_ARGS): one of its
 * arguments holds a buffer after it had held an SVM pointer. */
int clsfault_forms_refused(cl_kernel k);

#endif
