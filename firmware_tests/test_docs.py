placeholder = 'of_kind("board") of_kind("sim")'
