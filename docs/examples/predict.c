/* predict.c - libddiosim from C (docs/api.md): the Markov model's PCIe
 * write hit rate for each RX ring size, on the built-in machine and
 * workload.  Build against the installed library:
 *   cc predict.c $(pkg-config --cflags --libs ddiosim) -o predict
 * Prints "rx-ring N: PCIe write hit X%" per size; exit 1 on an error. */
#include <ddiosim.h>
#include <stdio.h>
#include <string.h>

/* The number after "key": in the result (the model's hit rates are all
 * objects {"lower", "upper", "mean", "estimate"}: the first is the lower
 * bound).  A program with a JSON parser at hand would use it instead. */
static double number_after(const char *json, const char *key)
{
    const char *p = strstr(json, key);
    double v = -1;
    if (p && (p = strchr(p, ':')) && (p = strpbrk(p, "-0123456789")))
        sscanf(p, "%lf", &v);
    return v;
}

int main(void)
{
    if (ddiosim_api_version() != DDIOSIM_API_VERSION) {
        fprintf(stderr, "libddiosim %s speaks API %d, not %d\n", ddiosim_version(), ddiosim_api_version(),
                DDIOSIM_API_VERSION);
        return 1;
    }
    for (int ring = 256; ring <= 2048; ring *= 2) {
        char req[128], err[512], *out = NULL;
        snprintf(req, sizeof req, "{\"machine\": \"skylake-6140\", \"rx-ring\": %d}", ring);
        int rc = ddiosim_predict(req, &out, err, sizeof err);
        if (rc != DDIOSIM_OK) {
            fprintf(stderr, "predict: %s (status %d)\n", err, rc);
            return 1;
        }
        printf("rx-ring %d: PCIe write hit %.2f%%\n", ring, 100 * number_after(out, "\"pcie_write_hit"));
        ddiosim_free(out);
    }
    return 0;
}
