# nothing here

