-- Generated from results-schema.sql by `node contract/readme-tables.js --write`: edit it there.
CREATE TABLE IF NOT EXISTS ads (
  id         bigserial PRIMARY KEY,
  title      text        NOT NULL,
  body       text        NOT NULL DEFAULT '',
  price      numeric(12,2) NOT NULL DEFAULT 0,
  contact    text        NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
