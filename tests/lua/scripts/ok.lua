loaded_value = 7
