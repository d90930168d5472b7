/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --web-config FILE: TLS and basic authentication for /metrics, in the
 * Prometheus exporter toolkit's format (a YAML subset: the keys below and
 * nothing else):
 *
 *   tls_server_config:
 *     cert_file: server.crt      # PEM; relative paths: from FILE's directory
 *     key_file: server.key
 *   basic_auth_users:
 *     alice: $2y$10$...          # bcrypt hashes ($2a$, $2b$, $2y$): htpasswd -nbB
 *
 * exporters/prom_http.c serves TLS by libmicrohttpd's GnuTLS support and
 * checks passwords with libcrypt's crypt_rn().
 */
#ifndef RT_WEB_CONFIG_H
#define RT_WEB_CONFIG_H

#include <stddef.h>

struct rt_web_user {
	char name[64];
	char hash[64];		/* a bcrypt hash: 60 characters, cost 04-14 */
	char seen[128];		/* the last password verified, under the
				 * process's salt (SHA-256 crypt); "" none */
};

struct rt_web_auth;

struct rt_web_config {
	char *cert_pem, *key_pem;	/* the files' contents; NULL: no TLS */
	struct rt_web_user *users;	/* none: no authentication */
	size_t nusers;
	struct rt_web_auth *auth;	/* the remembered passwords' salt, the clients' budgets */
};

/* Wrong passwords (each a bcrypt) a client may send at once; then one a second. */
#define RT_WEB_BURST	4

enum { RT_WEB_BUSY = -1, RT_WEB_DENIED = 0, RT_WEB_OK = 1 };

/* Read FILE into c (a regular file, whole, and the PEM files it names);
 * 0, or -1 after one sentence on stderr. */
int rt_web_config_load(const char *path, struct rt_web_config *c);
/* The users of a configuration's text (len bytes; path names it in the
 * messages), its files not read: 0, or -1 after one sentence (fuzz_webcfg). */
int rt_web_config_parse(const char *path, const char *text, size_t len, struct rt_web_config *c);
void rt_web_config_free(struct rt_web_config *c);
/* Whether user and password match a user of c: RT_WEB_OK, RT_WEB_DENIED, or
 * RT_WEB_BUSY when the password is not the one last verified and the client
 * (client: clen bytes naming it, its address) has spent its bcrypt budget;
 * now: seconds on a monotonic clock. One thread at a time. */
int rt_web_config_check(struct rt_web_config *c, const char *user, const char *password, const void *client,
			size_t clen, double now);
/* An Authorization header "Basic BASE64(user:password)" into user and
 * password; -1 when it is not one, holds a NUL, or either does not fit. */
int rt_web_basic_decode(const char *header, char *user, size_t ulen, char *password, size_t plen);

#endif
