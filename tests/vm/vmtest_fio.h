#ifndef NVB_VMTEST_FIO_H
#define NVB_VMTEST_FIO_H
/* vmtest fio JOBFILE [KEY=VALUE ...] (vmtest_fio.c): 0, 1 a step failed, 2 refused. */
int vm_fio(int argc, char **argv);
#endif
