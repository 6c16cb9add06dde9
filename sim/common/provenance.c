/* provenance.c - the version and command line an output carries
 * (sim/common/provenance.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim/common/provenance.h"

/* Whether a word reads back as itself in a POSIX shell without quotes. */
static int plain_word(const char *w)
{
    if (!*w)
        return 0;
    for (const char *c = w; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%", *c))
            return 0;
    return 1;
}

/* Append w to out at *k, quoted when it must be: the caller sized out for
 * the worst case (every character a quote, 4 bytes each, plus 3). */
static void put_word(char *out, size_t *k, const char *w)
{
    if (plain_word(w)) {
        size_t n = strlen(w);
        memcpy(out + *k, w, n);
        *k += n;
        return;
    }
    out[(*k)++] = '\'';
    for (const char *c = w; *c; c++) {
        if (*c == '\'') {
            memcpy(out + *k, "'\\''", 4);   /* close, an escaped quote, reopen */
            *k += 4;
        } else {
            out[(*k)++] = *c;
        }
    }
    out[(*k)++] = '\'';
}

char *ddio_command_line(int argc, char *const *argv)
{
    size_t cap = sizeof "ddiosim";
    for (int i = 0; i < argc; i++)
        cap += 4 * strlen(argv[i]) + 3;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t k = 0;
    put_word(out, &k, "ddiosim");
    for (int i = 0; i < argc; i++) {
        out[k++] = ' ';
        put_word(out, &k, argv[i]);
    }
    out[k] = '\0';
    return out;
}

char *ddio_sidecar_path(const char *out)
{
    size_t n = strlen(out) + sizeof ".meta.json";
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s.meta.json", out);
    return p;
}

int ddio_provenance_add(cJSON *root, const char *command)
{
    cJSON *p = cJSON_CreateObject();
    if (!p || !cJSON_AddStringToObject(p, "version", DDIOSIM_VERSION) ||
        !cJSON_AddStringToObject(p, "command", command ? command : "") ||
        !cJSON_AddItemToObject(root, "ddiosim", p)) {
        cJSON_Delete(p);
        return -1;
    }
    /* cJSON appends; the key is kept when the item moves to the front. */
    if (root->child != p) {
        cJSON_DetachItemViaPointer(root, p);
        p->next = root->child;
        p->prev = root->child->prev;   /* cJSON keeps the last item in the first's prev */
        root->child->prev = p;
        root->child = p;
    }
    return 0;
}

char *ddio_provenance_insert(char *text, const char *command)
{
    cJSON *p = cJSON_CreateObject();
    char *member = NULL, *out = NULL;
    const char *brace = text ? strchr(text, '{') : NULL;
    if (p && brace && cJSON_AddStringToObject(p, "version", DDIOSIM_VERSION) &&
        cJSON_AddStringToObject(p, "command", command ? command : ""))
        member = cJSON_PrintUnformatted(p);
    cJSON_Delete(p);
    if (member) {
        /* after the brace: the member, then a comma unless the object is empty */
        size_t head = (size_t)(brace - text) + 1, n = strlen(text) + strlen(member) + 32;
        const char *rest = brace + 1 + strspn(brace + 1, " \t\r\n");
        if ((out = malloc(n)) != NULL)
            snprintf(out, n, "%.*s\n\t\"ddiosim\":\t%s%s%s", (int)head, text, member, *rest == '}' ? "\n" : ",",
                     *rest == '}' ? rest : brace + 1);
    }
    free(member);
    free(text);
    return out;
}
