-- One database per service, created on the first start of the PostgreSQL volume.
CREATE DATABASE meme_catalog;
CREATE DATABASE node_dashboard;
