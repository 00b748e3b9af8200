int cmd_make_model(int, char **) { return 1; }
