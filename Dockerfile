# The Junqi platform's app image (docker-compose.yml runs two of it behind nginx).
FROM python:3.11-slim
# openssl: docker-compose.yml's `certs` service makes the first start's self-signed certificate
# with this image (deploy/tls-cert.sh)
RUN apt-get update && apt-get install -y --no-install-recommends openssl \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY engine engine
COPY server server
COPY migrations migrations
COPY web web
# editable, so that the app finds web/ and migrations/ beside its code
RUN pip install --no-cache-dir -e .
ENV JUNQI_HOST=0.0.0.0 JUNQI_PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=5s --timeout=3s --retries=5 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/ready')"
CMD ["junqi", "serve"]
