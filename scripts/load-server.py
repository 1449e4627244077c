#!/usr/bin/env python3
"""Load run of Examples/Server (make load, issue 40): CLIENTS concurrent clients, each posting
PRODUCTS products into the same three categories, found or created by name by the server, spread
over one or more server URLs (clients alternate between them). Prints requests per second and
p50/p99 latency, then checks what was stored: no failed request, every product in every category,
no category twice. Exits 1 when a check fails. Requests go to the given loopback URLs only.

usage: load-server.py LABEL CLIENTS PRODUCTS concurrent|serial URL [URL ...]

serial: one client posts the same CLIENTS x PRODUCTS products, one after the other (the baseline).
"""
import http.client
import json
import sys
import threading
import time
import urllib.parse

CATEGORIES = ["Tools", "Garden", "Sale"]


def sku(client, index):
    # The model's pattern: three capitals, a dash, three digits.
    return "L%s%s-%03d" % (chr(65 + client // 26), chr(65 + client % 26), index)


def connection(url):
    parts = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)


def run_client(work, url, latencies, failures):
    conn = connection(url)
    for client, index in work:
        body = json.dumps({"sku": sku(client, index), "title": "Load %d/%d" % (client, index),
                           "price": 1 + index, "categories": CATEGORIES})
        started = time.perf_counter()
        try:
            conn.request("POST", "/products", body, {"Content-Type": "application/json"})
            response = conn.getresponse()
            text = response.read()
            status = response.status
        except (OSError, http.client.HTTPException) as error:
            status, text = 0, str(error).encode()
            conn.close()
            conn = connection(url)
        latencies.append(time.perf_counter() - started)
        if status != 201:
            failures.append((sku(client, index), status, text[:300].decode("utf-8", "replace")))
    conn.close()


def get_json(url, path):
    conn = connection(url)
    conn.request("GET", path)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    if response.status != 200:
        raise RuntimeError("GET %s: %d %s" % (path, response.status, data[:200]))
    return json.loads(data)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    if len(sys.argv) < 6 or sys.argv[4] not in ("concurrent", "serial"):
        print(__doc__)
        return 2
    label, clients, products, mode, urls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5:]
    latencies, failures, threads = [], [], []
    if mode == "serial":
        work = [[(client, index) for client in range(clients) for index in range(products)]]
    else:
        work = [[(client, index) for index in range(products)] for client in range(clients)]
    started = time.perf_counter()
    for number, items in enumerate(work):
        thread = threading.Thread(target=run_client, args=(items, urls[number % len(urls)], latencies, failures))
        threads.append(thread)
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    total = clients * products
    print("%s: %d client%s, %d products over %d server%s: %d requests in %.2f s, %.0f requests/s, p50 %.1f ms, p99 %.1f ms, %d failed"
          % (label, len(work), "" if len(work) == 1 else "s", total, len(urls), "" if len(urls) == 1 else "s", total, elapsed, total / elapsed,
             percentile(latencies, 0.50) * 1000, percentile(latencies, 0.99) * 1000, len(failures)))
    problems = ["request %s: %d %s" % failure for failure in failures[:10]]
    # What was stored, read back through the first server.
    categories = get_json(urls[0], "/categories")
    names = [category["name"] for category in categories]
    if sorted(names) != sorted(CATEGORIES):
        problems.append("categories stored: %s (each of %s once expected)" % (names, CATEGORIES))
    expected = {sku(client, index) for client in range(clients) for index in range(products)}
    for name in CATEGORIES:
        stored = {product["sku"] for product in get_json(urls[0], "/categories/%s/products" % name)}
        if stored != expected:
            problems.append("%s holds %d products, %d expected (%d missing)" % (name, len(stored), len(expected), len(expected - stored)))
    for problem in problems:
        print("  FAIL " + problem)
    if not problems:
        print("  every product stored with its 3 categories, each category once")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
