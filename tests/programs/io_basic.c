/* MPI-IO semantics on any number of ranks (at most 64): explicit offsets,
 * a vector view with collective access, ordered and shared writes,
 * nonblocking and split collective calls, sizes, atomicity, amodes and the
 * error classes of bad amodes, missing files, negative offsets and writes
 * to a read-only file. Prints " No Errors" on rank 0. argv[1]: the file. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
static int errs = 0;
#define CHECK(c, ...) do { if (!(c)) { errs++; printf("rank %d: ", rank); printf(__VA_ARGS__); printf("\n"); } } while (0)
int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *name = argc > 1 ? argv[1] : "io_basic.dat";
    MPI_File fh;
    MPI_Status st;
    int rc, cls, count;
    /* missing file */
    rc = MPI_File_open(MPI_COMM_WORLD, "/nonexistent/dir/x", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_NO_SUCH_FILE, "missing: class %d", cls);
    rc = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_AMODE, "amode: class %d", cls);
    MPI_File_delete(name, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    rc = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    CHECK(rc == MPI_SUCCESS, "open %d", rc);
    int buf[4], in[4];
    for (int i = 0; i < 4; i++) buf[i] = rank * 100 + i;
    rc = MPI_File_write_at(fh, rank * 16, buf, 4, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(rc == 0 && count == 4, "write_at rc %d count %d", rc, count);
    MPI_Barrier(MPI_COMM_WORLD);
    int peer = (rank + 1) % size;
    rc = MPI_File_read_at(fh, peer * 16, in, 4, MPI_INT, &st);
    for (int i = 0; i < 4; i++) CHECK(in[i] == peer * 100 + i, "read_at %d: %d", i, in[i]);
    /* vector view: rank r owns ints r, r+size, ... */
    MPI_Datatype vec, ft;
    MPI_Type_vector(4, 1, size, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, 4 * size * sizeof(int), &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, 1000 + rank * sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL);
    for (int i = 0; i < 4; i++) buf[i] = 1000 * rank + i;
    rc = MPI_File_write_all(fh, buf, 4, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(rc == 0 && count == 4, "write_all rc %d count %d", rc, count);
    MPI_Offset pos, boff;
    MPI_File_get_position(fh, &pos);
    CHECK(pos == 4, "position %lld", (long long)pos);
    MPI_File_get_byte_offset(fh, 1, &boff);
    CHECK(boff == 1000 + rank * 4 + size * 4, "byte offset %lld", (long long)boff);
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    memset(in, 0, sizeof in);
    rc = MPI_File_read_all(fh, in, 4, MPI_INT, &st);
    for (int i = 0; i < 4; i++) CHECK(in[i] == 1000 * rank + i, "read_all %d: %d", i, in[i]);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    if (rank == 0) {
        int all[64];
        MPI_File_read_at(fh, 1000, all, 4 * size, MPI_INT, &st);
        for (int i = 0; i < 4 * size; i++)
            CHECK(all[i] == 1000 * (i % size) + i / size, "file int %d: %d", i, all[i]);
    }
    /* ordered: rank 0 writes one int, the others two, in rank order */
    MPI_File_set_view(fh, 5000, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    int two[2] = {rank, rank};
    MPI_File_write_ordered(fh, two, rank == 0 ? 1 : 2, MPI_INT, &st);
    MPI_File_get_position_shared(fh, &pos);
    CHECK(pos == 2 * size - 1, "shared pos %lld", (long long)pos);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    memset(in, -1, sizeof in);
    MPI_File_read_ordered(fh, in, rank == 0 ? 1 : 2, MPI_INT, &st);
    CHECK(in[0] == rank && (rank == 0 || in[1] == rank), "read_ordered %d %d", in[0], in[1]);
    /* shared */
    MPI_File_seek_shared(fh, 100, MPI_SEEK_SET);
    MPI_File_write_shared(fh, &rank, 1, MPI_INT, &st);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_get_position_shared(fh, &pos);
    CHECK(pos == 100 + size, "shared pos after %lld", (long long)pos);
    MPI_Barrier(MPI_COMM_WORLD);
    /* every rank's int is in the file once */
    {
        int seen[64] = {0}, v;
        for (int i = 0; i < size; i++) {
            v = -1;
            MPI_File_read_at(fh, 100 + i, &v, 1, MPI_INT, &st);
            if (v >= 0 && v < size) seen[v]++;
        }
        for (int i = 0; i < size; i++) CHECK(seen[i] == 1, "shared write of rank %d seen %d times", i, seen[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* nonblocking + split */
    MPI_Request req;
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_iwrite_at(fh, 8000 + rank * 4, &rank, 1, MPI_INT, &req);
    MPI_Wait(&req, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 1, "iwrite count %d", count);
    MPI_Barrier(MPI_COMM_WORLD);
    int x = -1;
    MPI_File_iread_at(fh, 8000 + peer * 4, &x, 1, MPI_INT, &req);
    MPI_Wait(&req, &st);
    CHECK(x == peer, "iread %d", x);
    MPI_File_write_at_all_begin(fh, 9000 + rank * 4, &rank, 1, MPI_INT);
    MPI_File_write_at_all_end(fh, &rank, &st);
    MPI_File_read_at_all_begin(fh, 9000 + peer * 4, &x, 1, MPI_INT);
    MPI_File_read_at_all_end(fh, &x, &st);
    CHECK(x == peer, "split %d", x);
    /* errors */
    rc = MPI_File_read_at(fh, -1, &x, 1, MPI_INT, &st);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "negative offset class %d", cls);
    int flag;
    MPI_File_set_atomicity(fh, 1);
    MPI_File_get_atomicity(fh, &flag);
    CHECK(flag == 1, "atomicity %d", flag);
    MPI_File_set_size(fh, 20000);
    MPI_Offset fsize;
    MPI_File_get_size(fh, &fsize);
    CHECK(fsize == 20000, "size %lld", (long long)fsize);
    MPI_File_preallocate(fh, 100);
    MPI_File_get_size(fh, &fsize);
    CHECK(fsize == 20000, "size after preallocate %lld", (long long)fsize);
    int amode;
    MPI_File_get_amode(fh, &amode);
    CHECK(amode == (MPI_MODE_RDWR | MPI_MODE_CREATE), "amode %d", amode);
    MPI_File_close(&fh);
    CHECK(fh == MPI_FILE_NULL, "closed handle");
    /* read-only: write fails */
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
    rc = MPI_File_write(fh, &x, 1, MPI_INT, &st);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_READ_ONLY, "read-only class %d", cls);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(access(name, F_OK) != 0, "deleted on close");
    MPI_Type_free(&ft);
    MPI_Type_free(&vec);
    if (rank == 0) printf(errs ? "FAILED\n" : " No Errors\n");
    MPI_Finalize();
    return 0;
}
