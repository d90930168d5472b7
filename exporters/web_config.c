// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --web-config FILE (exporters/web_config.h): a parser for the subset of YAML
 * the exporter toolkit's web configuration uses (two mappings of scalars,
 * comments, quotes), which refuses any key it does not implement rather than
 * serve without what the file asked for; and the bcrypt check.
 */
#include <crypt.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "web_config.h"

#define MAX_USERS	1024
#define MAX_PEM		(1 << 20)

enum section { SEC_NONE, SEC_TLS, SEC_USERS };

struct wparse {
	const char *path;
	int line;
	enum section sec;
	int tls;		/* tls_server_config given */
	char cert[PATH_MAX], key[PATH_MAX];
	struct rt_web_config *c;
};

static int bad(const struct wparse *p, const char *what)
{
	pr_warn("--web-config %s line %d: %s.\n", p->path, p->line, what);
	return -1;
}

/* A scalar: trailing blanks and a comment cut, quotes taken off. */
static int scalar(const struct wparse *p, char *v, char *out, size_t len)
{
	size_t n;

	while (*v == ' ')
		v++;
	if (*v == '\'' || *v == '"') {
		char *end = strchr(v + 1, *v);

		if (!end)
			return bad(p, "a quoted value does not end on its line");
		n = (size_t)(end - v - 1);
		v++;
	} else {
		char *hash = strstr(v, " #");

		if (hash)
			*hash = 0;
		n = strlen(v);
		while (n && v[n - 1] == ' ')
			n--;
	}
	if (n >= len)
		return bad(p, "a value is too long");
	memcpy(out, v, n);
	out[n] = 0;
	return 0;
}

static int bcrypt_hash(const char *h)
{
	return strlen(h) == 60 && h[0] == '$' && h[1] == '2' && strchr("aby", h[2]) && h[3] == '$';
}

static int top_key(struct wparse *p, const char *key, const char *rest)
{
	while (*rest == ' ')
		rest++;
	if (!strcmp(key, "tls_server_config")) {
		p->sec = SEC_TLS;
		p->tls = 1;
	} else if (!strcmp(key, "basic_auth_users")) {
		p->sec = SEC_USERS;
	} else {
		char msg[160];

		snprintf(msg, sizeof(msg), "'%.40s' is not supported: rocetop reads tls_server_config (cert_file, key_file) and basic_auth_users only", key);
		return bad(p, msg);
	}
	if (*rest && *rest != '#' && strcmp(rest, "{}"))
		return bad(p, "a section holds its keys on the lines below it, indented");
	return 0;
}

static int sub_key(struct wparse *p, const char *key, char *rest)
{
	struct rt_web_config *c = p->c;
	char val[PATH_MAX];

	if (scalar(p, rest, val, sizeof(val)))
		return -1;
	if (p->sec == SEC_TLS) {
		if (strcmp(key, "cert_file") && strcmp(key, "key_file")) {
			char msg[160];

			snprintf(msg, sizeof(msg), "'%.40s' is not supported in tls_server_config: give cert_file and key_file only", key);
			return bad(p, msg);
		}
		snprintf(!strcmp(key, "cert_file") ? p->cert : p->key, PATH_MAX, "%s", val);
		return 0;
	}
	if (p->sec != SEC_USERS)
		return bad(p, "an indented key outside tls_server_config and basic_auth_users");
	if (!bcrypt_hash(val))
		return bad(p, "a user's password must be a bcrypt hash ($2y$..., htpasswd -nbB USER PASSWORD makes one)");
	if (strlen(key) >= sizeof(c->users[0].name) || c->nusers == MAX_USERS)
		return bad(p, "too long a user name, or too many users");
	if (!(c->nusers & (c->nusers - 1)) || !c->users) {
		void *n = realloc(c->users, (c->nusers ? c->nusers * 2 : 4) * sizeof(*c->users));

		if (!n)
			return bad(p, "out of memory");
		c->users = n;
	}
	snprintf(c->users[c->nusers].name, sizeof(c->users[0].name), "%s", key);
	snprintf(c->users[c->nusers].hash, sizeof(c->users[0].hash), "%s", val);
	c->nusers++;
	return 0;
}

static int parse_line(struct wparse *p, char *s)
{
	char key[128], *colon;
	size_t indent = strspn(s, " ");

	s[strcspn(s, "\r\n")] = 0;
	if (s[indent] == '\t' || strchr(s, '\t'))
		return bad(p, "a tab: YAML indents with spaces");
	if (!s[indent] || s[indent] == '#' || (!indent && !strcmp(s, "---")))
		return 0;
	colon = strstr(s + indent, ": ");
	if (!colon && s[strlen(s) - 1] == ':')
		colon = s + strlen(s) - 1;
	if (!colon)
		return bad(p, "not a 'key: value' line");
	*colon = 0;
	if (scalar(p, s + indent, key, sizeof(key)))
		return -1;
	if (!indent)
		return top_key(p, key, colon + 1);
	return sub_key(p, key, colon + 1);
}

/* A PEM file named by the config, relative to its directory. */
static char *read_pem(const struct wparse *p, const char *name, const char *what)
{
	char path[PATH_MAX * 2], dir[PATH_MAX], *buf;
	FILE *f;
	size_t n;

	snprintf(dir, sizeof(dir), "%s", p->path);
	snprintf(path, sizeof(path), "%s%s%s", name[0] == '/' ? "" : dirname(dir), name[0] == '/' ? "" : "/", name);
	f = fopen(path, "re");
	if (!f) {
		pr_warn("--web-config %s: cannot read the %s %s: %s.\n", p->path, what, path, strerror(errno));
		return NULL;
	}
	buf = malloc(MAX_PEM + 1);
	n = buf ? fread(buf, 1, MAX_PEM, f) : 0;
	fclose(f);
	if (buf)
		buf[n] = 0;
	if (!buf || !n || n == MAX_PEM || !strstr(buf, "-----BEGIN ")) {
		pr_warn("--web-config %s: the %s %s is not a PEM file.\n", p->path, what, path);
		free(buf);
		return NULL;
	}
	return buf;
}

int rt_web_config_load(const char *path, struct rt_web_config *c)
{
	struct wparse p = { .path = path, .c = c };
	char line[1024];
	FILE *f;

	memset(c, 0, sizeof(*c));
	f = fopen(path, "re");
	if (!f) {
		pr_warn("--web-config %s: cannot read it: %s.\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		p.line++;
		if (parse_line(&p, line)) {
			fclose(f);
			rt_web_config_free(c);
			return -1;
		}
	}
	fclose(f);
	if (p.tls && (!p.cert[0] || !p.key[0])) {
		pr_warn("--web-config %s: tls_server_config needs both cert_file and key_file.\n", path);
		rt_web_config_free(c);
		return -1;
	}
	if (p.cert[0] && (!(c->cert_pem = read_pem(&p, p.cert, "certificate")) ||
			  !(c->key_pem = read_pem(&p, p.key, "key")))) {
		rt_web_config_free(c);
		return -1;
	}
	return 0;
}

void rt_web_config_free(struct rt_web_config *c)
{
	if (c->key_pem)
		explicit_bzero(c->key_pem, strlen(c->key_pem));
	free(c->cert_pem);
	free(c->key_pem);
	free(c->users);
	memset(c, 0, sizeof(*c));
}

int rt_web_config_check(const struct rt_web_config *c, const char *user, const char *password)
{
	const struct rt_web_user *u = NULL;
	struct crypt_data *cd;
	const char *out;
	unsigned char diff = 0;
	size_t i;
	int ok;

	if (!c->nusers || !user || !password)
		return 0;
	for (i = 0; i < c->nusers && !u; i++)
		if (!strcmp(c->users[i].name, user))
			u = &c->users[i];
	cd = calloc(1, sizeof(*cd));
	if (!cd)
		return 0;
	/* an unknown user costs a bcrypt too: the time tells no names */
	out = crypt_rn(password, u ? u->hash : c->users[0].hash, cd, sizeof(*cd));
	ok = out && u && strlen(out) == strlen(u->hash);
	for (i = 0; ok && out[i]; i++)
		diff |= (unsigned char)(out[i] ^ u->hash[i]);
	ok = ok && !diff;
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}
