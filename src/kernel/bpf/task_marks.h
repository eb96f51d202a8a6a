/* The task-storage marks of the tasks a BPF program follows: written by user space
 * (the kernel layer's loaders) when it marks the workload, read and advanced by the programs. */
#ifndef SONDE_TASK_MARKS_H
#define SONDE_TASK_MARKS_H

#define TASK_PENDING_EXEC 1 /* the held workload: followed from its exec on */
#define TASK_FOLLOWED 2

#endif
