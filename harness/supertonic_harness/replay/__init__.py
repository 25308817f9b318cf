"""``replay``: recorded events sent through the local function, checked, soaked and reported."""
