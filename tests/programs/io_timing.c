/* MPI-IO timing: an independent write of B bytes by rank 0 ("I" line),
 * then a collective write of N ints per rank through interleaved views
 * (rank r's ints at file ints 2i + r: two-phase I/O with one aggregator on
 * 2 ranks of a node; "C" lines), then rank 0 checks the file. Times in ps.
 * argv[1]: the file. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define B 1000000
#define N 1000

static long long ps(double t) { return (long long)(t * 1e12 + 0.5); }

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_File fh;
    MPI_Status st;
    char *big = malloc(B);
    for (int i = 0; i < B; i++) big[i] = (char)i;
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0) MPI_File_write_at(fh, 100000, big, B, MPI_BYTE, &st);
    double t1 = MPI_Wtime();
    printf("I %d %lld %lld\n", rank, ps(t0), ps(t1));

    MPI_Datatype ft;
    MPI_Type_create_resized(MPI_INT, 0, 8, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, 4 * rank, MPI_INT, ft, "native", MPI_INFO_NULL);
    int buf[N];
    for (int i = 0; i < N; i++) buf[i] = 10 * i + rank;
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    MPI_File_write_all(fh, buf, N, MPI_INT, &st);
    double t3 = MPI_Wtime();
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    printf("C %d %lld %lld %d\n", rank, ps(t2), ps(t3), count);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        FILE *f = fopen(argv[1], "rb");
        int all[2 * N];
        if (fread(all, sizeof(int), 2 * N, f) != 2 * N) { printf("short file\n"); return 1; }
        for (int i = 0; i < 2 * N; i++)
            if (all[i] != 10 * (i / 2) + i % 2) { printf("bad int %d: %d\n", i, all[i]); return 1; }
        fseek(f, 100000, SEEK_SET);
        for (int i = 0; i < B; i++)
            if (fgetc(f) != (unsigned char)i) { printf("bad byte %d\n", i); return 1; }
        fclose(f);
        printf("OK\n");
    }
    free(big);
    MPI_Type_free(&ft);
    MPI_Finalize();
    return 0;
}
